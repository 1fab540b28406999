"""pytest-lsp fixture: the real `teaminbox serve` subprocess."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_lsp
from lsp_session import SERVER, make_client
from pytest_lsp import ClientServerConfig, LanguageClient


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=SERVER, client_factory=make_client),
)
async def client(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    yield lsp_client
