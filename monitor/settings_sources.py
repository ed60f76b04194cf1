"""Settings layering with pydantic-settings: defaults < config file < ``AEM_*`` environment < init (flags).

pydantic-settings reads ``os.environ`` and no file unless told; a loader names the file section and,
in tests, an environment mapping for one load through :func:`settings_context`. The settings classes
return :func:`layered_sources` from ``settings_customise_sources``.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, EnvSettingsSource, PydanticBaseSettingsSource
from pydantic_settings.sources.utils import parse_env_vars


@dataclass(frozen=True)
class _Load:
    environ: Mapping[str, str] | None = None  # None: the process environment
    file_data: Mapping[str, Any] = field(default_factory=dict)


_LOAD: ContextVar[_Load | None] = ContextVar("aem_settings_load", default=None)


@contextlib.contextmanager
def settings_context(
    environ: Mapping[str, str] | None = None, file_data: Mapping[str, Any] | None = None
) -> Iterator[None]:
    """Settings built inside read ``environ`` (instead of the process's) and the config ``file_data``."""
    token = _LOAD.set(_Load(environ, dict(file_data or {})))
    try:
        yield
    finally:
        _LOAD.reset(token)


class MappingEnvSource(EnvSettingsSource):
    """The environment source over a given mapping (the process environment when None)."""

    def __init__(self, settings_cls: type[BaseSettings], environ: Mapping[str, str] | None) -> None:
        self._environ = environ
        super().__init__(settings_cls)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        environ = os.environ if self._environ is None else self._environ
        return parse_env_vars(environ, self.case_sensitive, self.env_ignore_empty, self.env_parse_none_str)


class FileSource(PydanticBaseSettingsSource):
    """The already-parsed config-file section (YAML or JSON, read by the loader)."""

    def __init__(self, settings_cls: type[BaseSettings], data: Mapping[str, Any]) -> None:
        super().__init__(settings_cls)
        self._data = dict(data)

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return self._data.get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        return dict(self._data)


def layered_sources(
    settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource
) -> tuple[PydanticBaseSettingsSource, ...]:
    """Init (flags) first, then the environment, then the config file; defaults come last by themselves."""
    load = _LOAD.get() or _Load()
    return (init_settings, MappingEnvSource(settings_cls, load.environ), FileSource(settings_cls, load.file_data))


class LayeredSettings(BaseSettings):
    """Settings read in layers: defaults < config file < ``AEM_*`` environment < flags (init values)."""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return layered_sources(settings_cls, init_settings)
