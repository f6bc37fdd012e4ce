"""Every error response as the interface's Error record: {code, message, status}."""
from rest_framework.views import exception_handler


def _messages(detail):
    if isinstance(detail, dict):
        out = []
        for field, value in detail.items():
            for message in _messages(value):
                out.append(message if field == 'non_field_errors' else f'{field}: {message}')
        return out
    if isinstance(detail, list):
        return [m for item in detail for m in _messages(item)]
    return [str(detail)]


def _code(codes):
    while isinstance(codes, (dict, list)):
        codes = next(iter(codes.values() if isinstance(codes, dict) else codes), 'error')
    return codes


def error_record_handler(exc, context):
    response = exception_handler(exc, context)
    if response is None:
        return None
    detail = getattr(exc, 'detail', response.data)
    codes = exc.get_codes() if hasattr(exc, 'get_codes') else 'error'
    response.data = {
        'code': _code(codes),
        'message': '; '.join(_messages(detail)),
        'status': response.status_code,
    }
    return response
