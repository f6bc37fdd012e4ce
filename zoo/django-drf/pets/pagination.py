from rest_framework.pagination import LimitOffsetPagination
from rest_framework.response import Response


class PetLimitPagination(LimitOffsetPagination):
    """?limit=1..100, default 20 (section 4.1); the page is a plain array, no wrapper."""

    default_limit = 20
    max_limit = 100

    def get_paginated_response(self, data):
        return Response(data)
