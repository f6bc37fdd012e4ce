from django.db import models


class Pet(models.Model):
    class Status(models.TextChoices):
        AVAILABLE = 'available'
        PENDING = 'pending'
        SOLD = 'sold'

    name = models.CharField(max_length=255)
    category_id = models.BigIntegerField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.AVAILABLE)

    class Meta:
        ordering = ['id']

    def __str__(self):
        return self.name
