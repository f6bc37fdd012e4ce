from rest_framework import generics

from .models import Pet
from .serializers import PetSerializer


class PetList(generics.ListCreateAPIView):
    """listPets (GET /v1/pets) and createPet (POST /v1/pets)."""

    serializer_class = PetSerializer

    def get_queryset(self):
        queryset = Pet.objects.all()
        status = self.request.query_params.get('status')
        if status:
            queryset = queryset.filter(status=status)
        return queryset


class PetDetail(generics.RetrieveAPIView):
    """getPet (GET /v1/pets/{petId}); deprecated, removed on 5 December 2030."""

    queryset = Pet.objects.all()
    serializer_class = PetSerializer
