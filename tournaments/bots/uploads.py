"""Reading an uploaded package: its size limit enforced while the request is read, its Python entry compiled.

Django's own handlers write a large upload to a temporary file in full before the
view sees its size.  ``PackageLimitHandler`` goes first: it refuses a request whose
declared length is already too large before reading any of it, and counts the
bytes of each file as they arrive, so a body without a length (or a lying one)
stops at the limit too.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from django.conf import settings
from django.core.files.uploadhandler import FileUploadHandler
from rest_framework.parsers import MultiPartParser

from tournaments.errors import ServiceError
from workers.packages.archive import SINGLE_FILE_NAME, python_entry

# Room for the form's other fields and the multipart boundaries around the file.
FORM_OVERHEAD = 64 * 1024


class PackageTooLarge(ServiceError):
    """The upload is over ARBITER_MAX_PACKAGE_BYTES (found while reading it)."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"The package is larger than the limit of {limit} bytes.",
            code="package_too_large",
            fields={"package": [f"larger than {limit} bytes"]},
        )


class PackageLimitHandler(FileUploadHandler):
    """Stops reading an upload as soon as it is known to exceed the package limit."""

    def __init__(self, request: Any = None) -> None:
        super().__init__(request)
        self.limit = settings.ARBITER_MAX_PACKAGE_BYTES

    def handle_raw_input(
        self, input_data: Any, META: Any, content_length: int, boundary: Any, encoding: str | None = None
    ) -> None:
        if content_length and content_length > self.limit + FORM_OVERHEAD:
            raise PackageTooLarge(self.limit)

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes:
        if start + len(raw_data) > self.limit:
            raise PackageTooLarge(self.limit)
        return raw_data

    def file_complete(self, file_size: int) -> None:
        return None  # the next handler makes the file


class PackageMultiPartParser(MultiPartParser):
    """Multipart, with :class:`PackageLimitHandler` in front of Django's upload handlers."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        request = (parser_context or {}).get("request")
        if request is not None:
            django_request = getattr(request, "_request", request)
            handlers = [h for h in django_request.upload_handlers if not isinstance(h, PackageLimitHandler)]
            django_request.upload_handlers = [PackageLimitHandler(django_request), *handlers]
        return super().parse(stream, media_type, parser_context)


def python_entry_check(*, data: bytes, filename: str) -> None:
    """Refuse a package whose Python entry file does not compile, saying where (file, line, message).

    The file is compiled, never run, by the server's Python; only the entry file is
    checked (modules it imports are not).  Call it on a package that passed inspection.
    """
    entry = python_entry(data, filename)
    if entry is None:
        return
    path, source = entry
    if path == SINGLE_FILE_NAME and filename.endswith(".py"):
        path = PurePosixPath(filename.replace("\\", "/")).name  # the author's own name for a single file
    try:
        compile(source, path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        where = f"{path}, line {exc.lineno}" if exc.lineno else path
        message = f"{where}: {exc.msg}"
        raise ServiceError(
            f"The bot does not compile: {message}.", code="invalid_package", fields={"package": [message]}
        ) from None
    except (ValueError, RecursionError, MemoryError) as exc:
        # A null byte (ValueError) or nesting too deep for the compiler.
        message = f"{path}: {exc or type(exc).__name__}"
        raise ServiceError(
            f"The bot does not compile: {message}.", code="invalid_package", fields={"package": [message]}
        ) from None
