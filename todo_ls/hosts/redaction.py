"""Secrets kept out of error text and logs: a `Redactor` per host connection, and a log-record
factory that scrubs every record of the process (it formats each record once and scrubs the
result, so it covers httpx, httpcore and every handler, including ones added later).
"""

from __future__ import annotations

import base64
import logging
import threading
from collections.abc import Iterable
from typing import Any

REDACTED = "***"


class Redactor:
    """Replaces secrets (and their Basic-auth encodings) in text with `***`."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets: list[str] = []
        for secret in secrets:
            self.add(secret)

    def add(self, secret: str) -> None:
        """Register a secret; empty strings are ignored (they would match everywhere)."""
        if secret and secret not in self._secrets:
            self._secrets.append(secret)
            # Longest first, so a secret that contains another is replaced whole.
            self._secrets.sort(key=len, reverse=True)

    def add_basic_auth(self, username: str, password: str) -> None:
        """Register the password and every form of it that can appear on the wire."""
        self.add(password)
        token = f"{username}:{password}"
        self.add(token)
        self.add(base64.b64encode(token.encode()).decode())

    @property
    def secrets(self) -> tuple[str, ...]:
        return tuple(self._secrets)

    def scrub(self, text: str) -> str:
        """`text` with every registered secret replaced."""
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return text


_LOG_REDACTOR = Redactor()
_factory_lock = threading.Lock()
_factory_installed = False


def install_log_redaction(redactor: Redactor) -> None:
    """Scrub `redactor`'s secrets from every log record of this process, from now on.

    Installed once as a log-record factory (so it covers httpx, httpcore and every handler,
    including ones added later); each call adds more secrets.
    """
    global _factory_installed
    for secret in redactor.secrets:
        _LOG_REDACTOR.add(secret)
    with _factory_lock:
        if _factory_installed:
            return
        previous = logging.getLogRecordFactory()

        def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
            record = previous(*args, **kwargs)
            message = record.getMessage()
            scrubbed = _LOG_REDACTOR.scrub(message)
            if scrubbed != message:
                record.msg, record.args = scrubbed, None
            if record.exc_info and record.exc_info[1] is not None:
                # Formatters render the exception later; pre-render it scrubbed.
                text = logging.Formatter().formatException(record.exc_info)
                record.exc_text = _LOG_REDACTOR.scrub(text)
            return record

        logging.setLogRecordFactory(factory)
        _factory_installed = True
