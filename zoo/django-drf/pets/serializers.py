from rest_framework import serializers

from .models import Pet


class PetSerializer(serializers.ModelSerializer):
    categoryId = serializers.IntegerField(source='category_id')

    class Meta:
        model = Pet
        fields = ['id', 'name', 'categoryId', 'status']
        read_only_fields = ['id']
