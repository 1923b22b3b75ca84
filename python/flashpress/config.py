"""``Config``: an immutable, fully resolved simulation config.

Every constructor goes through the Rust core, which merges user values over a preset,
checks every key and value, and returns the resolved config as JSON. Python keeps that JSON
and offers read-only views over it; it never validates anything itself.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from collections.abc import Iterator, Mapping

from flashpress import _core
from flashpress.errors import ConfigError

#: ``typing.TYPE_CHECKING`` without importing :mod:`typing` (mypy takes any name
#: ``TYPE_CHECKING`` as true). ``pathlib`` stays out too (it loads ``urllib.parse``,
#: ``ipaddress`` and ``fnmatch``): a config names files as strings. The two were 1.0-1.1 MiB of
#: ``flashpress run``'s peak RSS.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeAlias

    # Types only: building the TypedDicts at run time compiles each of their annotations.
    from flashpress.config_types import SimConfigDict

    PathLike: TypeAlias = str | os.PathLike[str]


def absolute_path(path: str | os.PathLike[str]) -> str:
    """``str(pathlib.Path(path).absolute())`` without importing :mod:`pathlib`: ``path``
    joined to the working folder when relative, empty and ``.`` parts and repeated slashes
    dropped, ``..`` kept (no symbolic link is resolved), a leading ``//`` kept as POSIX allows."""
    text = os.fspath(path)
    if not isinstance(text, str):
        raise TypeError(f"expected a str or os.PathLike[str] path, got {type(text).__name__}")
    base, relative = (text, "") if text.startswith("/") else (os.getcwd(), text)
    rest = base.lstrip("/")
    root = "//" if len(base) - len(rest) == 2 else "/"
    parts = [*rest.split("/"), *relative.split("/")]
    return root + "/".join(p for p in parts if p and p != ".")


def config_error(source_name: str, key: str, msg: str) -> ConfigError:
    """A ConfigError worded as the core words them, with ``key`` and ``source_name`` set."""
    err = ConfigError(f"{source_name}: config key `{key}`: {msg}")
    err.key, err.source_name = key, source_name
    return err


def _plain(value: Any, key: str, source_name: str) -> Any:
    """``value`` as plain JSON data. What JSON cannot carry is refused by the dotted key that
    holds it: NaN and infinities (JSON has no such numbers) and objects that are not config
    values (a date-time from ``--set seed=1979-05-27T07:32:00Z``). Paths, sets, tuples, views
    and numbers of other types (numpy's) become their plain equivalents."""
    where = key or "document"
    if value is None or isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise config_error(source_name, where, f"expected a finite number, got {value}")
        return value
    if isinstance(value, ConfigView):
        value = value.to_dict()
    if isinstance(value, Mapping):
        return {str(k): _plain(v, f"{key}.{k}" if key else str(k), source_name) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
        return [_plain(v, f"{key}[{i}]", source_name) for i, v in enumerate(items)]
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    # Imported here, not at the top: a run whose values are all plain never needs them, and
    # `datetime` alone is 0.6 MiB of `flashpress run`'s peak RSS.
    import datetime
    import numbers

    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return _plain(float(value), key, source_name)
    if isinstance(value, (datetime.date, datetime.time)):  # TOML date-times, datetime objects
        got = f"a date-time ({value.isoformat()}); quote it to give a string"
    else:
        got = f"a {type(value).__name__} ({value!r})"
    raise config_error(source_name, where, f"expected a number, string, boolean, list or table, got {got}")


def _to_json(value: Any, source_name: str) -> str:
    return json.dumps(_plain(value, "", source_name), allow_nan=False)


def _freeze(value: Any, path: str) -> Any:
    if isinstance(value, dict):
        return ConfigView(value, path)
    if isinstance(value, list):
        return tuple(_freeze(v, f"{path}[{i}]") for i, v in enumerate(value))
    return value


def _set_dotted(target: dict[str, Any], dotted: str, value: Any) -> None:
    """Set ``target[a][b][c] = value`` for ``dotted = "a.b.c"``. Dict values merge into existing
    tables key by key, except ``workload`` and tagged policy tables (a mapping with a ``type``
    key), which replace the old value whole (as the core merges)."""
    parts = dotted.split(".")
    node = target
    for part in parts[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            # Let the core report the key as unknown or of the wrong type.
            child = {}
            node[part] = child
        node = child
    last = parts[-1]
    tagged = isinstance(value, Mapping) and "type" in value
    if isinstance(value, Mapping) and dotted != "workload" and not tagged and isinstance(node.get(last), dict):
        for k, v in value.items():
            _set_dotted(node[last], str(k), v)
    else:
        import copy

        node[last] = copy.deepcopy(dict(value) if isinstance(value, Mapping) else value)


class ConfigView(Mapping[str, "Any"]):
    """A read-only view of one table of a config: ``cfg.ftl.gc.victim`` or ``cfg["ftl"]["gc"]``."""

    __slots__ = ("_data", "_path")

    def __init__(self, data: dict[str, Any], path: str) -> None:
        object.__setattr__(self, "_data", data)
        object.__setattr__(self, "_path", path)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return _freeze(self._data[name], f"{self._path}.{name}" if self._path else name)
        except KeyError:
            where = f"`{self._path}`" if self._path else "the config"
            raise AttributeError(f"{where} has no key `{name}` (keys: {', '.join(self._data)})") from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("configs are immutable; use Config.with_overrides({...})")

    def __getitem__(self, key: str) -> Any:
        return _freeze(self._data[key], f"{self._path}.{key}" if self._path else key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __dir__(self) -> list[str]:
        return [*self._data, "to_dict", "keys", "items", "values", "get"]

    def to_dict(self) -> dict[str, Any]:
        """A deep, mutable copy of this table."""
        import copy

        return copy.deepcopy(self._data)

    def __repr__(self) -> str:
        return f"ConfigView({self._path or '<root>'}: {json.dumps(self._data)})"


class Config:
    """A validated, fully resolved simulation config (immutable).

    Build one with :meth:`preset`, :meth:`from_toml`, :meth:`from_dict` or :meth:`from_json`;
    derive variants with :meth:`with_overrides`. Tables read as attributes::

        cfg = Config.preset("tiny").with_overrides({"ftl.op_ratio": 0.2})
        cfg.nand.channels, cfg.ftl.gc.victim
    """

    __slots__ = ("_data", "_json", "_source")

    _json: str
    _data: dict[str, Any]
    _source: str

    def __init__(self, resolved_json: str, source: str = "config") -> None:
        """Wrap resolved JSON as returned by the core. Use the class methods instead."""
        object.__setattr__(self, "_json", resolved_json)
        object.__setattr__(self, "_data", json.loads(resolved_json))
        object.__setattr__(self, "_source", source)

    # -- constructors -------------------------------------------------------------------
    @classmethod
    def preset(cls, name: str = "default") -> Config:
        """A built-in preset (``flashpress.presets()`` lists them)."""
        return cls(_core.preset_config(name), f"preset `{name}`")

    @classmethod
    def from_toml(cls, path: PathLike) -> Config:
        """Load a TOML config file, merged over its ``preset`` (``default`` if none).
        Relative workload paths resolve against the file's folder."""
        return cls(_core.load_config_file(absolute_path(path)), str(path))

    @classmethod
    def from_dict(
        cls,
        d: Mapping[str, Any],
        base_dir: PathLike | None = None,
        *,
        source_name: str = "<dict>",
    ) -> Config:
        """Merge a (possibly partial) config mapping over its ``preset`` key's preset
        (``default`` if none). Relative workload paths resolve against ``base_dir``."""
        base = None if base_dir is None else absolute_path(base_dir)
        return cls(_core.resolve_config(_to_json(dict(d), source_name), source_name, base), source_name)

    @classmethod
    def from_json(cls, text: str, *, source_name: str = "<json>") -> Config:
        """A complete resolved config (e.g. a results directory's ``config.json``)."""
        # Python reads NaN and Infinity, which the core's JSON reader cannot: refuse them by
        # key here (a text that is not JSON at all, the core reports).
        with contextlib.suppress(json.JSONDecodeError):
            text = _to_json(json.loads(text), source_name)
        return cls(_core.validate_config(text, source_name, None), source_name)

    # -- derived configs ----------------------------------------------------------------
    def with_overrides(
        self,
        overrides: Mapping[str, Any],
        *,
        base_dir: PathLike | None = None,
        source_name: str = "overrides",
    ) -> Config:
        """A new config with ``overrides`` applied and re-validated by the core.

        Keys are dotted paths (``"ftl.op_ratio"``, ``"ftl.gc.victim"``) or table names; a
        mapping value merges into its table, except ``workload`` and tagged tables such as
        ``content.ratio = {"type": "zipf", ...}``, which are replaced whole.
        An unknown key raises ConfigError naming it.
        """
        if "scheme" in overrides:
            err = ConfigError(
                f"{source_name}: config key `scheme`: a scheme is applied when a config is built "
                '(its keys go between the preset and the config\'s own); write `scheme = "SEED/NAME"` '
                "in the config file or pass it to Config.from_dict, not as an override"
            )
            err.key, err.source_name = "scheme", source_name
            raise err
        data = self.to_dict()
        for key, value in overrides.items():
            _set_dotted(data, str(key), value)  # type: ignore[arg-type]  # a TypedDict is a dict[str, Any]
        base = None if base_dir is None else absolute_path(base_dir)
        return Config(_core.validate_config(_to_json(data, source_name), source_name, base), source_name)

    # -- views --------------------------------------------------------------------------
    def to_dict(self) -> SimConfigDict:
        """The resolved config as a new (mutable) dict."""
        import copy

        data: SimConfigDict = copy.deepcopy(self._data)  # type: ignore[assignment]  # the core's schema
        return data

    def to_json(self) -> str:
        """The resolved config as pretty JSON, exactly as written to ``config.json``."""
        return self._json

    def get(self, dotted: str) -> Any:
        """Value at a dotted key, e.g. ``cfg.get("ftl.gc.victim")``."""
        node: Any = self._data
        for part in dotted.split("."):
            if not isinstance(node, dict) or part not in node:
                raise KeyError(dotted)
            node = node[part]
        return _freeze(node, dotted)

    def logical_bytes(self) -> int:
        """Bytes of logical space the device exposes: ``floor(physical pages * (1 - op_ratio))``
        pages, as the FTL computes it (a plain SSD; a stack's file system sees the same), less the page a
        compressing device keeps for the page it fills (core: ``ftl::host_pages``)."""
        n = self._data["nand"]
        phys = 1
        for k in ("channels", "chips_per_channel", "dies_per_chip", "planes_per_die", "blocks_per_plane"):
            phys *= int(n[k])
        phys *= int(n["pages_per_block"])
        pages = math.floor(phys * (1.0 - float(self._data["ftl"]["op_ratio"])))
        if self._data["ftl"].get("compression"):
            pages -= 1  # a compressing device keeps one virtual page for the page being filled
        return pages * int(n["page_size"])

    def mapping_table_bytes(self) -> int:
        """Bytes of the mapping table this device keeps in DRAM, as ``summary.mapping_table_bytes``
        counts it (PR-SSD's accounting); a demand-paged map (``ftl.map_cache``) of a
        compressing device spreads it over its logical pages. With ``[stack]``: the CCSD's
        chunk map, 8 bytes per logical block. Without the split FTL, the largest
        ``ftl.map_cache.dram_bytes`` (see :meth:`map_cache_table_bytes`)."""
        return int(_core.mapping_table_bytes(self.to_json()))

    def map_cache_table_bytes(self) -> int:
        """Bytes of the whole table a demand-paged map (``ftl.map_cache``) pages, the largest
        ``ftl.map_cache.dram_bytes``: :meth:`mapping_table_bytes`, plus with the split FTL
        (``ftl.compression.split``) its split table at capacity (``max_split_pages`` entries of
        ``summary.split_table_bytes``'s width)."""
        return int(_core.map_cache_table_bytes(self.to_json()))

    @property
    def source(self) -> str:
        """Where the config came from (file, preset or ``<dict>``), for messages."""
        return self._source

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(ConfigView(self._data, ""), name)

    def __getitem__(self, key: str) -> Any:
        return ConfigView(self._data, "")[key]

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Config is immutable; use Config.with_overrides({...})")

    def __dir__(self) -> list[str]:
        return sorted({*self._data, *object.__dir__(self)})

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Config):
            return NotImplemented
        return self._data == other._data

    def __hash__(self) -> int:
        return hash(json.dumps(self._data, sort_keys=True))

    def __repr__(self) -> str:
        n = self._data.get("nand", {})
        w = self._data.get("workload", {})
        return (
            f"<Config from {self._source}: {n.get('channels')}ch x {n.get('chips_per_channel')} chips, "
            f"{n.get('cell')}, op_ratio={self._data.get('ftl', {}).get('op_ratio')}, "
            f"workload={w.get('type')}, seed={self._data.get('seed')}>"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (Config, (self._json, self._source))


def presets() -> list[str]:
    """Names of the built-in presets."""
    return list(_core.preset_names())


def preset_toml(name: str) -> str:
    """The TOML text of a built-in preset."""
    return _core.preset_toml(name)
