"""Authorization: Bearer <API_KEY> (section 5 of the interface)."""
import hmac

from django.conf import settings
from rest_framework import authentication, exceptions


class APIClient:
    """The caller that presented the key; there are no user accounts."""

    is_authenticated = True


class BearerKeyAuthentication(authentication.TokenAuthentication):
    keyword = 'Bearer'

    def authenticate_credentials(self, key):
        if not hmac.compare_digest(key.encode(), settings.API_KEY.encode()):
            raise exceptions.AuthenticationFailed('Invalid API key.')
        return (APIClient(), key)
