"""One variable of a scientific data file as a :class:`Field`: the values a lossy codec compresses.

Formats are told by their first bytes, not their names: netCDF3 classic, 64-bit offset and
64-bit data (``CDF\\x01``, ``CDF\\x02``, ``CDF\\x05``) and netCDF4 (HDF5 with netCDF's markers) are
read with ``netCDF4``; other HDF5 files with ``h5py`` (the variable is the dataset's path);
``.npy`` with numpy; anything else is raw binary, which needs ``dtype`` and ``shape``.

Values that stand for "no data" -- ``_FillValue``, ``missing_value``, netCDF4's default fill,
values outside ``valid_min``/``valid_max``/``valid_range`` -- become the field's mask and are
replaced in ``data`` by the mean of the valid values (so a codec sees no huge outlier). Packed
variables (``scale_factor``/``add_offset``) are unpacked to float64. Every mistake raises
:class:`~flashpress.errors.FieldError` naming the file, the variable and what was expected.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from flashpress.errors import FieldError

__all__ = ["DATASETS", "Field", "dataset", "list_variables", "read_field"]

NETCDF3_MAGIC = (b"CDF\x01", b"CDF\x02", b"CDF\x05")
HDF5_MAGIC = b"\x89HDF\r\n\x1a\n"
NPY_MAGIC = b"\x93NUMPY"
#: Attributes only netCDF-4 writes into an HDF5 file (root or dataset).
_NETCDF4_MARKERS = ("_NCProperties", "_Netcdf4Dimid", "_Netcdf4Coordinates", "_nc3_strict")
#: ``dtype`` spellings accepted -> numpy little-endian type.
_DTYPES = {"f32": "<f4", "float32": "<f4", "f64": "<f8", "float64": "<f8"}

#: Built-in data sets: name -> (file in ``$FLASHPRESS_TESTDATA/lossy``, variable, what it is).
#: ``make testdata`` fetches the files (testdata/lossy.toml).
DATASETS: dict[str, tuple[str, str, str]] = {
    "etopo5": (
        "etopo5.cdf",
        "ROSE",
        "ETOPO5 relief of the Earth's surface, land elevation and ocean depth on a 5-minute grid (m)",
    ),
    "levitus_temp": (
        "levitus_climatology.cdf",
        "TEMP",
        "Levitus annual ocean temperature climatology, 20 depths on a 1-degree grid, land masked (deg C)",
    ),
    "navy_uwnd": (
        "monthly_navy_winds.cdf",
        "UWND",
        "FNOC monthly zonal surface wind 1980-1990 on a 2.5-degree grid (m/s)",
    ),
    "coads_sst": (
        "coads_climatology.cdf",
        "SST",
        "COADS monthly sea surface temperature climatology on a 2-degree grid, land masked (deg C)",
    ),
    "trinidad": (
        "trinidad.nc",
        "data",
        "elevation around Trinidad, Colorado, on a 3-arc-second grid, in feet (no units attribute; NCL example data)",
    ),
    "nc4uvt_t": (
        "nc4uvt.nc",
        "T",
        "global air temperature at 14 pressure levels on a T42 grid, netCDF4 (K, though units say C; NCL example data)",
    ),
    "a1b_air": (
        "a1b_north_america.nc",
        "air_temperature",
        "Met Office model air temperature over North America, scenario A1B, 240 time steps, netCDF4 (K)",
    ),
    "ostia_sst": (
        "ostia_monthly.nc",
        "surface_temperature",
        "OSTIA monthly mean surface temperature over a latitude band, 54 months, land masked, netCDF4 (K)",
    ),
}


@dataclass(frozen=True, eq=False)
class Field:
    """The values of one variable, ready for a codec.

    ``data`` is float32 or float64 and C-contiguous; where ``mask`` is False (no data) it holds
    the mean of the valid values. ``mask`` is None when every value is valid. ``fill_value`` is
    what a load puts back where the mask says no data (the file's ``_FillValue`` or
    ``missing_value``; None, so NaN, for packed variables, whose fill value is in packed units,
    and for values masked by ``nonfinite="mask"``, so an Inf comes back as NaN).
    """

    name: str
    path: str
    variable: str | None
    data: np.ndarray
    mask: np.ndarray | None
    fill_value: float | None
    units: str | None

    @property
    def dtype(self) -> np.dtype[Any]:
        return self.data.dtype

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.data.shape)

    @property
    def nbytes(self) -> int:
        return int(self.data.nbytes)

    @cached_property
    def valid(self) -> int:
        """How many values are valid."""
        return int(self.data.size if self.mask is None else np.count_nonzero(self.mask))

    @cached_property
    def vmin(self) -> float:
        """The smallest valid value."""
        if self.mask is None:
            return float(self.data.min())
        return float(np.min(self.data, where=self.mask, initial=np.inf))

    @cached_property
    def vmax(self) -> float:
        """The largest valid value."""
        if self.mask is None:
            return float(self.data.max())
        return float(np.max(self.data, where=self.mask, initial=-np.inf))

    @property
    def value_range(self) -> float:
        """max - min over the valid values (what a range-relative bound is relative to)."""
        return self.vmax - self.vmin

    def __repr__(self) -> str:
        return (
            f"Field({self.name!r}, shape={self.shape}, dtype={self.dtype}, valid={self.valid}/{self.data.size}, "
            f"range=[{self.vmin:g}, {self.vmax:g}], units={self.units!r})"
        )


def _where(path: str, variable: str | None) -> str:
    return f"{path}, variable {variable!r}" if variable is not None else path


def _magic(path: str) -> str:
    """``netcdf3``, ``hdf5``, ``npy`` or ``raw`` by the first bytes (an HDF5 superblock may also
    sit after a user block at 512, 1024, 2048, ... bytes)."""
    with open(path, "rb") as f:
        head = f.read(8)
        if head[:4] in NETCDF3_MAGIC:
            return "netcdf3"
        if head == HDF5_MAGIC:
            return "hdf5"
        if head[:6] == NPY_MAGIC:
            return "npy"
        size = os.fstat(f.fileno()).st_size
        offset = 512
        while offset + 8 <= size:
            f.seek(offset)
            if f.read(8) == HDF5_MAGIC:
                return "hdf5"
            offset *= 2
    return "raw"


def _is_netcdf4(path: str) -> bool:
    """An HDF5 file that netCDF-4 wrote (its root or any dataset carries netCDF's own attributes)."""
    with _h5py().File(path, "r") as f:
        if any(k in f.attrs for k in _NETCDF4_MARKERS):
            return True
        found: list[bool] = []

        def visit(_name: str, obj: Any) -> bool | None:
            if any(k in obj.attrs for k in _NETCDF4_MARKERS):
                found.append(True)
                return True
            return None

        f.visititems(visit)
        return bool(found)


def file_kind(path: str) -> str:
    """``netcdf`` (netCDF3 or netCDF4), ``hdf5`` (plain), ``npy`` or ``raw``."""
    m = _magic(path)
    if m == "netcdf3":
        return "netcdf"
    if m == "hdf5":
        try:
            return "netcdf" if _is_netcdf4(path) else "hdf5"
        except OSError as e:
            raise FieldError(f"{path}: starts like an HDF5 file but h5py cannot read it: {e}", path=path) from None
    return m


def _resolve(spec: str | os.PathLike[str], variable: str | None) -> tuple[str, str | None]:
    """(path, variable) of ``PATH`` or ``PATH:VARIABLE``: split on the last colon only when the
    whole spec is no file and the part before the colon is a netCDF/HDF5 file."""
    s = os.fspath(spec)
    if variable is not None or os.path.exists(s) or ":" not in s:
        return s, variable
    head, _, tail = s.rpartition(":")
    if tail and os.path.isfile(head) and file_kind(head) in ("netcdf", "hdf5"):
        return head, tail
    return s, variable


def _scalar(x: Any) -> float | None:
    """The first number of an attribute value, as a float (None if it has none)."""
    if x is None:
        return None
    a = np.asarray(x).ravel()
    if a.size == 0 or a.dtype.kind not in "iufb":
        return None
    return float(a[0])


def _text(x: Any) -> str | None:
    if x is None:
        return None
    if isinstance(x, bytes):
        return x.decode("utf-8", "replace")
    if isinstance(x, np.ndarray):
        if x.size != 1:
            return None
        x = x.ravel()[0]
        return x.decode("utf-8", "replace") if isinstance(x, bytes) else str(x)
    return str(x)


def _target_dtype(
    src: np.dtype[Any], scaled: bool, dtype: str | None, path: str, variable: str | None
) -> np.dtype[Any]:
    """The float type the field gets, or FieldError for a type that is not a real number."""
    want = _parse_dtype(dtype, path, variable)
    kind = src.kind
    if kind not in "fiub":
        raise FieldError(
            f"{_where(path, variable)}: unsupported dtype {src} (a field is real numbers: float32 or float64; "
            "complex, string, compound and time types are not)",
            path=path,
            variable=variable,
        )
    if want is not None:
        return want
    if scaled:
        return np.dtype(np.float64)
    if kind == "f":
        if src.itemsize == 4:
            return np.dtype(np.float32)
        if src.itemsize == 8:
            return np.dtype(np.float64)
        raise FieldError(
            f"{_where(path, variable)}: unsupported dtype {src} (a field is float32 or float64); "
            f"pass dtype='{'f32' if src.itemsize < 4 else 'f64'}' to convert",
            path=path,
            variable=variable,
        )
    raise FieldError(
        f"{_where(path, variable)}: unsupported dtype {src} (a field is float32 or float64); "
        "pass dtype='f32' (or 'f64') to convert",
        path=path,
        variable=variable,
    )


def _parse_dtype(dtype: str | None, path: str, variable: str | None) -> np.dtype[Any] | None:
    if dtype is None:
        return None
    if dtype not in _DTYPES:
        raise FieldError(
            f"{_where(path, variable)}: dtype {dtype!r}: expected one of {', '.join(map(repr, _DTYPES))}",
            path=path,
            variable=variable,
        )
    return np.dtype(_DTYPES[dtype]).newbyteorder("=")


def _finish(
    path: str,
    variable: str | None,
    values: np.ndarray,
    invalid: np.ndarray | None,
    target: np.dtype[Any],
    fill_value: float | None,
    units: str | None,
    nonfinite: str,
) -> Field:
    """The Field of `values` (any numeric type; the reader's own array, changed in place where it
    can be) where `invalid` marks no-data positions."""
    where = _where(path, variable)
    if values.size == 0:
        raise FieldError(f"{where}: empty (shape {values.shape}): no value to compress", path=path, variable=variable)
    data = np.ascontiguousarray(values, dtype=target)
    if not data.flags.writeable:
        data = data.copy()
    valid = None if invalid is None or not invalid.any() else ~np.asarray(invalid, dtype=bool)
    bad = ~np.isfinite(data)
    if valid is not None:
        bad &= valid
    nbad = int(np.count_nonzero(bad))
    if nbad:
        if nonfinite == "error":
            nnan = int(np.count_nonzero(np.isnan(data) & bad))
            raise FieldError(
                f"{where}: {nbad} of its {data.size} values are NaN or Inf ({nnan} NaN, {nbad - nnan} Inf) and "
                "not marked as missing; pass nonfinite='mask' to treat them as missing values",
                path=path,
                variable=variable,
            )
        valid = ~bad if valid is None else valid & ~bad
    if valid is not None:
        n = int(np.count_nonzero(valid))
        if n == 0:
            fill = f" (fill value {fill_value:g})" if fill_value is not None else ""
            raise FieldError(
                f"{where}: all {data.size} values are missing{fill}: no valid value to compress",
                path=path,
                variable=variable,
            )
        lo = float(np.min(data, where=valid, initial=np.inf))
        hi = float(np.max(data, where=valid, initial=-np.inf))
        mean = float(np.sum(data, where=valid, dtype=np.float64)) / n
        data[~valid] = min(max(mean, lo), hi)  # the mean, kept inside [lo, hi] against rounding
    name = Path(path).stem if variable is None else f"{Path(path).stem}:{variable.lstrip('/')}"
    return Field(name, path, variable, data, valid, fill_value, units)


def _check_nonfinite(nonfinite: str, path: str) -> None:
    if nonfinite not in ("error", "mask"):
        raise FieldError(f"{path}: nonfinite={nonfinite!r}: expected 'error' or 'mask'", path=path)


def read_field(
    spec: str | os.PathLike[str],
    variable: str | None = None,
    *,
    dtype: str | None = None,
    shape: tuple[int, ...] | None = None,
    nonfinite: str = "error",
) -> Field:
    """Read one variable of a netCDF3/netCDF4, HDF5, ``.npy`` or raw file.

    ``spec`` is ``PATH`` or ``PATH:VARIABLE``. ``variable`` may be left out when the file has one
    data variable. ``dtype`` ("f32"/"f64") is a raw file's value type (little-endian), and for
    other files the float type to convert to (needed for integer variables). ``shape`` is a raw
    file's (needed) or an .npy file's (checked). ``nonfinite`` is what NaN or Inf among the valid
    values does: "error" (FieldError) or "mask" (treated as missing values).
    """
    path, variable = _resolve(spec, variable)
    _check_nonfinite(nonfinite, path)
    if not os.path.exists(path):
        raise FieldError(
            f"{_where(path, variable)}: no such file (expected a netCDF, HDF5, .npy or raw binary file)",
            path=path,
            variable=variable,
        )
    if os.path.isdir(path):
        raise FieldError(f"{path}: is a folder (expected a netCDF, HDF5, .npy or raw binary file)", path=path)
    kind = file_kind(path)
    if kind == "netcdf":
        return _read_netcdf(path, variable, dtype, nonfinite)
    if kind == "hdf5":
        return _read_hdf5(path, variable, dtype, nonfinite)
    if variable is not None:
        raise FieldError(
            f"{_where(path, variable)}: a {'.npy' if kind == 'npy' else 'raw binary'} file has one array and no "
            "variables (only netCDF and HDF5 files have named variables)",
            path=path,
            variable=variable,
        )
    if kind == "npy":
        return _read_npy(path, dtype, shape, nonfinite)
    return _read_raw(path, dtype, shape, nonfinite)


# -- netCDF (netCDF4 reads netCDF3 and netCDF4) ------------------------------------------------


def _nc_open(path: str) -> Any:
    import netCDF4

    try:
        return netCDF4.Dataset(path, "r")
    except OSError as e:
        raise FieldError(f"{path}: starts like a netCDF file but netCDF4 cannot read it: {e}", path=path) from None


def _nc_variables(group: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    for name, v in group.variables.items():
        yield prefix + name, v
    for gname, g in group.groups.items():
        yield from _nc_variables(g, f"{prefix}{gname}/")


def _nc_attr(v: Any, name: str) -> Any:
    return v.getncattr(name) if name in v.ncattrs() else None


def _nc_is_data(name: str, v: Any, bounds: set[str]) -> bool:
    """A variable that holds a field: numbers in two or more dimensions, not a cell-bounds variable."""
    dt = v.dtype
    return isinstance(dt, np.dtype) and dt.kind in "fiu" and v.ndim >= 2 and name.rsplit("/", 1)[-1] not in bounds


def _pick(path: str, candidates: list[str], listing: list[str]) -> str:
    if len(candidates) == 1:
        return candidates[0]
    which = (
        f"it has {len(candidates)} data variables: {', '.join(candidates)}"
        if candidates
        else "it has no variable of two or more dimensions"
    )
    raise FieldError(
        f"{path}: name the variable to read (PATH:VARIABLE or variable=...); {which} (all variables: "
        f"{', '.join(listing)})",
        path=path,
    )


# netCDF classic (CDF-1), 64-bit offset (CDF-2) and 64-bit data (CDF-5) headers, from Unidata's
# "NetCDF Classic and 64-bit Offset File Formats" and the CDF-5 spec: big-endian; every list is
# ABSENT (two zero words) or a tag (dimensions 10, variables 11, attributes 12) and a count;
# names and attribute values are padded to 4 bytes. netCDF-C reads values past the end of a
# short file as fill values, so a truncated file reads as a whole field unless its size is
# checked against the extents its header declares.
_NC_TYPE_SIZE = {1: 1, 2: 1, 3: 2, 4: 4, 5: 4, 6: 8, 7: 1, 8: 2, 9: 4, 10: 8, 11: 8}


class _Truncated(Exception):
    pass


def _nc3_needed_bytes(path: str) -> tuple[int, str] | None:
    """(bytes the header says the file holds, what ends there) for a netCDF3 file; None for a
    streaming file (no record count). Raises FieldError for a header cut short or malformed."""
    import struct

    size = os.path.getsize(path)
    with open(path, "rb") as fh:
        head = fh.read(min(size, 1 << 24))
    pos = 4
    version = head[3] if len(head) > 3 else 0
    count_w = 8 if version == 5 else 4
    offset_w = 4 if version == 1 else 8

    def take(n: int) -> bytes:
        nonlocal pos
        if pos + n > len(head):
            raise _Truncated
        b = head[pos : pos + n]
        pos += n
        return b

    def word(n: int) -> int:
        return int.from_bytes(take(n), "big")

    def name() -> str:
        n = word(count_w)
        raw = take(n)
        take(-n % 4)
        return raw.decode("utf-8", "replace")

    def attrs() -> None:
        tag, n = word(4), word(count_w)
        if tag not in (0, 12):
            raise ValueError(f"attribute list tag {tag}")
        for _ in range(n):
            name()
            t = word(4)
            k = word(count_w) * _NC_TYPE_SIZE.get(t, 0)
            if t not in _NC_TYPE_SIZE:
                raise ValueError(f"attribute type {t}")
            take(k + (-k % 4))

    try:
        numrecs = word(count_w)
        streaming = numrecs == (1 << (8 * count_w)) - 1
        tag, ndims = word(4), word(count_w)
        if tag not in (0, 10):
            raise ValueError(f"dimension list tag {tag}")
        dims = []
        for _ in range(ndims):
            name()
            dims.append(word(count_w))
        attrs()
        tag, nvars = word(4), word(count_w)
        if tag not in (0, 11):
            raise ValueError(f"variable list tag {tag}")
        variables = []
        for _ in range(nvars):
            vname = name()
            ids = [word(count_w) for _ in range(word(count_w))]
            attrs()
            t = word(4)
            word(count_w)  # vsize: 32 bits wraps for big variables; computed below instead
            begin = word(offset_w)
            if t not in _NC_TYPE_SIZE or any(i >= len(dims) for i in ids):
                raise ValueError(f"variable {vname!r}")
            record = bool(ids) and dims[ids[0]] == 0
            n = _NC_TYPE_SIZE[t]
            for i in ids[1:] if record else ids:
                n *= dims[i]
            variables.append((vname, record, begin, n))
    except _Truncated:
        raise FieldError(
            f"{path}: netCDF3 file cut short: its header ends past the file's {size:,} bytes (truncated copy?)",
            path=path,
        ) from None
    except (ValueError, struct.error) as e:
        raise FieldError(f"{path}: not a valid netCDF3 header ({e})", path=path) from None
    if streaming:
        return None
    recs = [v for v in variables if v[1]]
    # One record variable is not padded (the spec's exception); several are, to 4 bytes each.
    recsize = sum(n if len(recs) == 1 else n + (-n % 4) for _, _, _, n in recs)
    needed, what = 0, "the header"
    for vname, record, begin, n in variables:
        end = begin + (numrecs - 1) * recsize + n if record and numrecs else begin + (0 if record else n)
        if end > needed:
            needed, what = end, f"variable {vname!r}"
    return needed, what


def _check_nc3_size(path: str) -> None:
    if _magic(path) != "netcdf3":
        return
    got = _nc3_needed_bytes(path)
    size = os.path.getsize(path)
    if got is not None and size < got[0]:
        raise FieldError(
            f"{path}: netCDF3 file cut short: its header places {got[1]} up to byte {got[0]:,}, the file has "
            f"{size:,} bytes (truncated copy?)",
            path=path,
        )


def _read_netcdf(path: str, variable: str | None, dtype: str | None, nonfinite: str) -> Field:
    _check_nc3_size(path)
    ds = _nc_open(path)
    try:
        allvars = dict(_nc_variables(ds))
        if variable is None:
            bounds = {str(b) for v in allvars.values() if isinstance(b := _nc_attr(v, "bounds"), str)}
            variable = _pick(path, [n for n, v in allvars.items() if _nc_is_data(n, v, bounds)], list(allvars))
        v = allvars.get(variable.lstrip("/"))
        if v is None:
            raise FieldError(
                f"{path}: no variable {variable!r}; it has {', '.join(_describe_nc(n, x) for n, x in allvars.items())}",
                path=path,
                variable=variable,
            )
        if not isinstance(v.dtype, np.dtype):
            raise FieldError(
                f"{_where(path, variable)}: unsupported dtype {getattr(v.dtype, '__name__', v.dtype)} "
                "(a field is real numbers: float32 or float64)",
                path=path,
                variable=variable,
            )
        names = v.ncattrs()
        scaled = "scale_factor" in names or "add_offset" in names
        target = _target_dtype(v.dtype, scaled, dtype, path, variable)
        _check_fits(path, variable, tuple(v.shape), v.dtype.itemsize)
        v.set_auto_maskandscale(True)
        v.set_always_mask(True)
        raw = v[...]
        values = np.ma.getdata(raw)
        invalid = np.ma.getmaskarray(raw) if np.ma.is_masked(raw) else None
        fill = _scalar(_nc_attr(v, "_FillValue"))
        if fill is None:
            fill = _scalar(_nc_attr(v, "missing_value"))
        units = _text(_nc_attr(v, "units"))
    finally:
        ds.close()
    # A packed variable's fill value is in packed units: the unpacked field has none to put back.
    fill = None if scaled else fill
    return _finish(path, variable, np.asarray(values), invalid, target, fill, units, nonfinite)


def _describe_nc(name: str, v: Any) -> str:
    return f"{name}{tuple(v.shape)}"


# -- plain HDF5 (h5py) -------------------------------------------------------------------------


def _h5py() -> Any:
    import h5py

    return h5py


def _h5_datasets(f: Any) -> list[tuple[str, Any]]:
    h5py = _h5py()
    out: list[tuple[str, Any]] = []

    def visit(name: str, obj: Any) -> None:
        if isinstance(obj, h5py.Dataset):
            out.append((name, obj))

    f.visititems(visit)
    return out


def _read_hdf5(path: str, variable: str | None, dtype: str | None, nonfinite: str) -> Field:
    h5py = _h5py()
    with h5py.File(path, "r") as f:
        datasets = _h5_datasets(f)
        if variable is None:
            data_sets = [
                n
                for n, d in datasets
                if d.ndim >= 2 and d.dtype.kind in "fiu" and _text(d.attrs.get("CLASS")) != "DIMENSION_SCALE"
            ]
            variable = _pick(path, data_sets, [n for n, _ in datasets])
        key = variable.lstrip("/")
        obj = f.get(key) if key else None
        if not isinstance(obj, h5py.Dataset):
            what = "is a group, not a dataset" if isinstance(obj, h5py.Group) else "does not exist"
            listing = ", ".join(f"{n}{tuple(d.shape)}" for n, d in datasets) or "no dataset"
            raise FieldError(
                f"{path}: variable {variable!r} {what}; its datasets are {listing}", path=path, variable=variable
            )
        if obj.chunks is not None and obj.id.get_storage_size() == 0:
            raise FieldError(
                f"{_where(path, variable)}: dataset {'x'.join(map(str, obj.shape))} was never written (no chunk "
                "is stored; every value would be the fill value)",
                path=path,
                variable=variable,
            )
        _check_fits(path, variable, obj.shape, obj.dtype.itemsize)
        attrs = obj.attrs
        scale, offset = attrs.get("scale_factor"), attrs.get("add_offset")
        scaled = scale is not None or offset is not None
        target = _target_dtype(obj.dtype, scaled, dtype, path, variable)
        packed = np.asarray(obj[()])
        invalid = np.zeros(packed.shape, dtype=bool)
        fills: list[float] = []
        for attr in ("_FillValue", "missing_value"):
            if attr in attrs:
                for x in np.asarray(attrs[attr]).ravel():
                    if np.asarray(x).dtype.kind in "iufb":
                        fills.append(float(x))
                        invalid |= np.isnan(packed) if math.isnan(float(x)) else packed == x
        lo = _scalar(attrs.get("valid_min"))
        hi = _scalar(attrs.get("valid_max"))
        if "valid_range" in attrs:
            r = np.asarray(attrs["valid_range"]).ravel()
            if r.size == 2:
                lo, hi = float(r[0]), float(r[1])
        if lo is not None:
            invalid |= packed < lo
        if hi is not None:
            invalid |= packed > hi
        units = _text(attrs.get("units"))
    values: np.ndarray = packed
    if scaled:
        values = packed.astype(np.float64)
        if scale is not None:
            values *= float(np.asarray(scale).ravel()[0])
        if offset is not None:
            values += float(np.asarray(offset).ravel()[0])
    fill = fills[0] if fills and not scaled else None  # a packed fill value is in packed units
    return _finish(path, variable, values, invalid, target, fill, units, nonfinite)


def _check_fits(path: str, variable: str | None, shape: tuple[int, ...], itemsize: int) -> None:
    """Refuse a field whose values alone exceed this machine's memory (reading it would fail
    part-way with numpy's allocation error)."""
    need = math.prod(shape) * itemsize
    try:
        phys = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return
    if need > phys:
        raise FieldError(
            f"{_where(path, variable)}: {'x'.join(map(str, shape))} values of {itemsize} bytes are {need / 2**30:,.1f} "
            f"GiB, more than this machine's {phys / 2**30:,.1f} GiB of memory",
            path=path,
            variable=variable,
        )


# -- .npy and raw binary ------------------------------------------------------------------------


def _npy_header(path: str) -> tuple[tuple[int, ...], np.dtype[Any], int]:
    """(shape, dtype, data offset) of an .npy file, its size checked against the shape it declares."""
    try:
        with open(path, "rb") as fh:
            version = np.lib.format.read_magic(fh)
            read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
            shape, _fortran, dt = read(fh, max_header_size=1 << 16)
            offset = fh.tell()
    except Exception as e:  # numpy raises ValueError, SyntaxError or tokenize's TokenError on a bad header
        from flashpress._core import shorten_message

        why = shorten_message(f"{type(e).__name__}: {e}")
        raise FieldError(f"{path}: not a readable .npy header: {why}", path=path) from None
    if not all(isinstance(n, int) and n >= 0 for n in shape):
        raise FieldError(f"{path}: the .npy header's shape {shape} is not a tuple of sizes", path=path)
    need = math.prod(shape) * dt.itemsize
    have = os.path.getsize(path) - offset
    if need > have:
        shown = "x".join(map(str, shape)) if len(str(shape)) < 80 else f"{len(shape)} dimensions"
        raise FieldError(
            f"{path}: the .npy header declares {dt} {shown} ({need:,} bytes of values), the file holds {have:,}",
            path=path,
        )
    return shape, dt, offset


def _read_npy(path: str, dtype: str | None, shape: tuple[int, ...] | None, nonfinite: str) -> Field:
    _npy_header(path)
    try:
        values = np.load(path, allow_pickle=False)
    except ValueError as e:
        raise FieldError(f"{path}: not a readable .npy array of numbers: {e}", path=path) from None
    if not isinstance(values, np.ndarray):
        raise FieldError(f"{path}: expected one .npy array", path=path)
    if shape is not None and tuple(shape) != values.shape:
        raise FieldError(f"{path}: the .npy array has shape {values.shape}, expected shape {tuple(shape)}", path=path)
    target = _target_dtype(values.dtype, False, dtype, path, None)
    return _finish(path, None, values, None, target, None, None, nonfinite)


def _read_raw(path: str, dtype: str | None, shape: tuple[int, ...] | None, nonfinite: str) -> Field:
    size = os.path.getsize(path)
    if dtype is None or shape is None:
        with open(path, "rb") as f:
            head = f.read(8)
        missing = " and ".join(x for x, v in (("dtype", dtype), ("shape", shape)) if v is None)
        raise FieldError(
            f"{path}: not netCDF, HDF5 or .npy (it starts with {head!r}), so it is read as raw binary, which needs "
            f"{missing}: pass dtype='f32' or 'f64' (little-endian) and shape=(...) whose product times the "
            f"value size is the file size ({size} bytes)",
            path=path,
        )
    want = _parse_dtype(dtype, path, None)
    assert want is not None
    dims = tuple(shape)
    if not dims or any(not isinstance(d, (int, np.integer)) or isinstance(d, bool) or d <= 0 for d in dims):
        raise FieldError(f"{path}: shape {shape!r}: expected a tuple of positive integers", path=path)
    n = math.prod(int(d) for d in dims)
    if n * want.itemsize != size:
        raise FieldError(
            f"{path}: the file is {size} bytes, but shape {dims} of {dtype} ({want.itemsize} bytes each) implies "
            f"{n * want.itemsize} bytes",
            path=path,
        )
    values = np.fromfile(path, dtype=np.dtype(_DTYPES[dtype])).reshape(dims)
    return _finish(path, None, values, None, want, None, None, nonfinite)


# -- listing and the built-in data sets ----------------------------------------------------------


def list_variables(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The variables of a netCDF or HDF5 file: name, dims, shape, dtype, fill value and units each."""
    p = os.fspath(path)
    if not os.path.isfile(p):
        raise FieldError(f"{p}: no such file (expected a netCDF or HDF5 file)", path=p)
    kind = file_kind(p)
    out: list[dict[str, Any]] = []
    if kind == "netcdf":
        _check_nc3_size(p)
        ds = _nc_open(p)
        try:
            for name, v in _nc_variables(ds):
                fill = _scalar(_nc_attr(v, "_FillValue"))
                out.append(
                    {
                        "name": name,
                        "dims": tuple(v.dimensions),
                        "shape": tuple(v.shape),
                        "dtype": str(v.dtype) if isinstance(v.dtype, np.dtype) else getattr(v.dtype, "__name__", "?"),
                        "fill_value": fill if fill is not None else _scalar(_nc_attr(v, "missing_value")),
                        "units": _text(_nc_attr(v, "units")),
                    }
                )
        finally:
            ds.close()
        return out
    if kind == "hdf5":
        with _h5py().File(p, "r") as f:
            for name, d in _h5_datasets(f):
                fill = _scalar(d.attrs.get("_FillValue"))
                out.append(
                    {
                        "name": name,
                        "dims": tuple(dim.label or "" for dim in d.dims),
                        "shape": tuple(d.shape),
                        "dtype": str(d.dtype),
                        "fill_value": fill if fill is not None else _scalar(d.attrs.get("missing_value")),
                        "units": _text(d.attrs.get("units")),
                    }
                )
        return out
    raise FieldError(f"{p}: not a netCDF or HDF5 file (a {kind} file has no variables)", path=p)


def dataset(name: str) -> Field:
    """Built-in data set `name` (of :data:`DATASETS`), from the folder ``make testdata`` fills."""
    from flashpress.reproduce import testdata

    if name not in DATASETS:
        raise FieldError(f"no built-in data set {name!r}; expected one of {', '.join(DATASETS)}")
    fname, variable, _ = DATASETS[name]
    # The index is images.json of the lossy set; each file's entry is named by its stem.
    path = testdata.image("lossy", Path(fname).stem)
    return read_field(path, variable)
