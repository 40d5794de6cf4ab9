"""FastAPI loaded for the app (`gui.app.start_app`), without what it builds or looks up for a feature
SeqDesk does not use: the app's start is what `seqdesk run` waits for when no app serves the folder.

- The models of an OpenAPI document (`fastapi.openapi.models`: Schema, Operation, Components, …) are
  defined as FastAPI is imported, and pydantic builds each model's validator as it is defined: 0.08 s
  of CPU, an eighth of the start of the app a command starts in the background, for a document SeqDesk
  never serves (its apps have no `openapi_url`). They are loaded with pydantic's `defer_build`: each is
  built the first time it is used, if ever (a security scheme's model, an OpenAPI document asked for).
  Three of them are built at once all the same: the module ends by rebuilding them (`Schema`,
  `Operation`, `Encoding`, whose fields name models defined after them), and a rebuild ignores
  `defer_build`: 0.06 s more (a tenth of that start). Their rebuild is left to their first use as
  well (`model_rebuild` does nothing while FastAPI is imported), which resolves those names then.
- `pydantic.v1`: FastAPI imports it as each route is added, only to refuse a pydantic v1 model, and
  SeqDesk has none. It is declined in the app's process (as if not installed, which FastAPI handles).
"""

from __future__ import annotations

import sys
from typing import Any

DECLINED = ("pydantic.v1",)


def load_fastapi() -> None:
    """Import FastAPI as above (once: nothing is done when it is loaded already)."""
    if "fastapi" in sys.modules:
        return
    for name in DECLINED:
        sys.modules.setdefault(name, None)  # type: ignore[arg-type]  # None: Python's "not importable"
    from pydantic import BaseModel

    given, rebuild = BaseModel.model_config, BaseModel.__dict__["model_rebuild"]

    def model_rebuild(model: type[Any], **how: Any) -> bool | None:
        """Nothing when a module's own code calls it as it is imported (the model is built when first
        used); pydantic's otherwise (a model used meanwhile is built then, by pydantic's call)."""
        if sys._getframe(1).f_code.co_name == "<module>":
            return None
        return rebuild.__func__(model, **how)

    BaseModel.model_config = {**given, "defer_build": True}  # every model FastAPI defines inherits it
    BaseModel.model_rebuild = classmethod(model_rebuild)  # type: ignore[method-assign,assignment]
    try:
        import fastapi  # noqa: F401
    finally:
        BaseModel.model_config = given
        BaseModel.model_rebuild = rebuild  # type: ignore[method-assign]
