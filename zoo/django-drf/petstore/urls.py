"""URL configuration: the interface's three operations under /v1 (section 9)."""
from django.contrib import admin
from django.urls import path

from pets import views

urlpatterns = [
    path('admin/', admin.site.urls),
    path('v1/pets', views.PetList.as_view(), name='pet-list'),
    path('v1/pets/<int:pk>', views.PetDetail.as_view(), name='pet-detail'),
]
