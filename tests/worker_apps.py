"""Tiny apps for the multi-worker tests: each answers with the process that served it."""

from __future__ import annotations

import os

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route


def pid_app() -> Starlette:
    """An app whose one page says which worker process answered."""

    async def whoami(request: Request) -> JSONResponse:
        return JSONResponse({"pid": os.getpid(), "parent": os.getppid()})

    return Starlette(routes=[Route("/whoami", whoami)])
