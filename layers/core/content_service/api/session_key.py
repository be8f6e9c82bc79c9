"""The key that signs session cookies: an SSM SecureString on AWS, a local file otherwise."""

from __future__ import annotations

from content_service.settings import Settings, SettingsError


def load_session_key(settings: Settings) -> str:
    if settings.session_key_file is not None:
        key = settings.session_key_file.read_text().strip()
    elif settings.session_key_parameter:
        from aws_lambda_powertools.utilities.parameters import get_parameter

        key = str(get_parameter(settings.session_key_parameter, decrypt=True, max_age=300))
    else:
        raise SettingsError("no session key: set SESSION_KEY_FILE or SESSION_KEY_PARAMETER")
    if len(key) < 32:
        raise SettingsError("the session key must be at least 32 characters")
    return key
