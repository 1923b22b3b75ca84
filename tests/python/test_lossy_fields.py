"""Reading scientific fields (``flashpress.lossy.fields``) from the real netCDF files ``make
testdata`` fetches (testdata/lossy.toml) and from files written here, each checked against what
netCDF4, h5py or numpy read directly; and the ``[files.NAME]`` entries of testdata/fetch.py."""

from __future__ import annotations

import hashlib
import subprocess
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import h5py  # type: ignore[import-untyped]
import netCDF4
import numpy as np
import pytest

from flashpress.errors import FieldError
from flashpress.lossy import fields
from flashpress.lossy.fields import DATASETS, Field, dataset, list_variables, read_field
from flashpress.reproduce import testdata

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def lossy() -> Path:
    """The folder of the real fields; they are required (CI runs `make testdata` first)."""
    folder = testdata.root() / "lossy"
    if not (folder / "images.json").exists():
        pytest.fail(
            f"{folder / 'images.json'} is missing: these tests read the real netCDF files of testdata/lossy.toml; "
            "run `make testdata` (or point FLASHPRESS_TESTDATA at a folder it filled)"
        )
    return folder


def _netcdf(path: Path, variable: str) -> np.ma.MaskedArray[Any, Any]:
    with netCDF4.Dataset(path) as ds:
        return ds[variable][...]


def _check_against(f: Field, direct: np.ma.MaskedArray[Any, Any]) -> None:
    """`f` holds the values read directly where they are valid, and its mask is theirs."""
    invalid = np.ma.getmaskarray(direct)
    values = np.ma.getdata(direct)
    assert f.shape == values.shape
    assert f.data.flags.c_contiguous
    assert f.dtype in (np.float32, np.float64)
    if invalid.any():
        assert f.mask is not None
        np.testing.assert_array_equal(f.mask, ~invalid)
        np.testing.assert_array_equal(f.data[f.mask], values[~invalid])
        mean = values[~invalid].astype(np.float64).mean()
        np.testing.assert_allclose(f.data[~f.mask], mean, rtol=1e-6)
    else:
        assert f.mask is None
        np.testing.assert_array_equal(f.data, values)
    assert f.valid == int((~invalid).sum())
    assert f.vmin == float(values[~invalid].min())
    assert f.vmax == float(values[~invalid].max())
    assert f.value_range == f.vmax - f.vmin


# -- the real files ---------------------------------------------------------------------------


def test_the_fetched_files_are_the_ones_the_manifest_pins(lossy: Path) -> None:
    m = tomllib.loads((ROOT / "testdata" / "lossy.toml").read_text())
    index = testdata.images("lossy")
    assert set(m["files"]) <= set(index)
    for name, spec in m["files"].items():
        entry = index[name]
        assert entry["kind"] == "file"
        assert entry["file"] == name + Path(spec["path"]).suffix
        raw = testdata.image("lossy", name).read_bytes()
        assert hashlib.sha256(raw).hexdigest() == spec["sha256"] == entry["sha256"], name
    for name, (fname, _, _) in DATASETS.items():
        assert Path(fname).stem in m["files"], f"DATASETS[{name!r}] names {fname}, which lossy.toml does not fetch"


@pytest.mark.parametrize("name", sorted(DATASETS))
def test_every_built_in_data_set_is_what_netcdf4_reads(lossy: Path, name: str) -> None:
    fname, variable, _ = DATASETS[name]
    f = dataset(name)
    assert f.variable == variable
    assert f.name == f"{Path(fname).stem}:{variable}"
    assert f.nbytes == f.data.nbytes
    _check_against(f, _netcdf(lossy / fname, variable))


def test_levitus_fill_is_masked_and_left_out_of_the_range(lossy: Path) -> None:
    path = lossy / "levitus_climatology.cdf"
    with netCDF4.Dataset(path) as ds:
        ds.set_auto_mask(False)
        raw = np.asarray(ds["TEMP"][...])
    fill = raw == np.float32(-1e10)
    assert fill.any()
    assert not fill.all()
    f = read_field(f"{path}:TEMP")
    assert f.fill_value == pytest.approx(-1e10)
    assert f.units == "DEG C"
    assert f.mask is not None
    np.testing.assert_array_equal(f.mask, ~fill)
    assert f.valid == int((~fill).sum())
    good = raw[~fill]
    assert (f.vmin, f.vmax) == (float(good.min()), float(good.max()))
    assert -3 < f.vmin < 0 < 25 < f.vmax < 35  # ocean temperatures in deg C, not -1e10
    assert f.value_range == pytest.approx(float(good.max()) - float(good.min()))
    assert np.all(f.data >= f.vmin)  # masked positions hold the mean, inside the range
    assert np.allclose(f.data[fill], good.astype(np.float64).mean(), rtol=1e-6)


def test_a_netcdf4_file_reads_as_h5py_reads_its_dataset(lossy: Path) -> None:
    path = lossy / "nc4uvt.nc"
    assert path.read_bytes()[:8] == b"\x89HDF\r\n\x1a\n"
    with h5py.File(path, "r") as h:
        direct = np.asarray(h["U"][()])
    f = read_field(path, "U")
    assert f.units == "m/s"
    assert f.fill_value == -999.0
    assert not (direct == -999.0).any()
    assert f.mask is None
    np.testing.assert_array_equal(f.data, direct)


def test_the_data_variable_is_found_when_not_named(lossy: Path) -> None:
    assert read_field(lossy / "trinidad.nc").variable == "data"
    # time_bnds is 2-D too, but it is the bounds of time: not a field.
    assert read_field(lossy / "a1b_north_america.nc").variable == "air_temperature"
    with pytest.raises(FieldError, match=r"coads_climatology\.cdf: name the variable to read.*7 data variables: SST"):
        read_field(lossy / "coads_climatology.cdf")


def test_list_variables_names_dims_fill_and_units(lossy: Path) -> None:
    by_name = {v["name"]: v for v in list_variables(lossy / "levitus_climatology.cdf")}
    temp = by_name["TEMP"]
    assert temp["dims"] == ("ZAXLEVITR", "YAXLEVITR", "XAXLEVITR")
    assert temp["shape"] == (20, 180, 360)
    assert temp["dtype"] == "float32"
    assert temp["fill_value"] == pytest.approx(-1e10)
    assert temp["units"] == "DEG C"
    assert {"SALT", "XAXLEVITR"} <= set(by_name)


def test_an_unknown_variable_lists_the_files_variables(lossy: Path) -> None:
    path = lossy / "levitus_climatology.cdf"
    with pytest.raises(
        FieldError, match=r"levitus_climatology\.cdf: no variable 'TMP'; it has .*TEMP\(20, 180, 360\)"
    ) as e:
        read_field(f"{path}:TMP")
    assert e.value.path == str(path)
    assert e.value.variable == "TMP"
    with pytest.raises(FieldError, match=r"no built-in data set 'etopo'; expected one of etopo5"):
        dataset("etopo")


# -- files written here -----------------------------------------------------------------------


def test_npy_round_trip(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    for dtype in (np.float32, np.float64):
        a = rng.normal(size=(30, 40, 5)).astype(dtype)
        np.save(tmp_path / "a.npy", a)
        f = read_field(tmp_path / "a.npy")
        assert f.dtype == dtype
        assert f.mask is None
        assert f.name == "a"
        assert f.variable is None
        np.testing.assert_array_equal(f.data, a)
    fortran = np.asfortranarray(rng.normal(size=(6, 7)))
    np.save(tmp_path / "f.npy", fortran)
    f = read_field(tmp_path / "f.npy", dtype="f32")
    assert f.data.flags.c_contiguous
    assert f.dtype == np.float32
    np.testing.assert_array_equal(f.data, fortran.astype(np.float32))
    with pytest.raises(FieldError, match=r"f\.npy: the \.npy array has shape \(6, 7\), expected shape \(7, 6\)"):
        read_field(tmp_path / "f.npy", shape=(7, 6))


def test_raw_round_trip_and_shape_mismatch(tmp_path: Path) -> None:
    a = np.linspace(-1, 1, 24 * 10, dtype="<f4").reshape(24, 10)
    a.tofile(tmp_path / "t.bin")
    f = read_field(tmp_path / "t.bin", dtype="f32", shape=(24, 10))
    np.testing.assert_array_equal(f.data, a)
    assert f.name == "t"
    assert f.nbytes == 960
    assert f.value_range == pytest.approx(2.0)
    a.astype("<f8").tofile(tmp_path / "d.raw")
    np.testing.assert_array_equal(read_field(tmp_path / "d.raw", dtype="float64", shape=(240,)).data, a.ravel())
    with pytest.raises(FieldError, match=r"t\.bin: the file is 960 bytes, but shape \(24, 20\) of f32 .*implies 1920"):
        read_field(tmp_path / "t.bin", dtype="f32", shape=(24, 20))
    with pytest.raises(FieldError, match=r"t\.bin: not netCDF, HDF5 or \.npy .*needs dtype and shape.*960 bytes"):
        read_field(tmp_path / "t.bin")
    with pytest.raises(FieldError, match=r"dtype 'int8': expected one of 'f32'"):
        read_field(tmp_path / "t.bin", dtype="int8", shape=(960,))


def test_nan_without_a_policy_is_an_error_and_masked_with_one(tmp_path: Path) -> None:
    a = np.arange(20, dtype=np.float32).reshape(4, 5)
    a[1, 2], a[3, 4] = np.nan, np.inf
    np.save(tmp_path / "n.npy", a)
    with pytest.raises(
        FieldError, match=r"n\.npy: 2 of its 20 values are NaN or Inf \(1 NaN, 1 Inf\).*nonfinite='mask'"
    ):
        read_field(tmp_path / "n.npy")
    f = read_field(tmp_path / "n.npy", nonfinite="mask")
    assert f.mask is not None
    assert f.valid == 18
    assert not f.mask[1, 2]
    assert not f.mask[3, 4]
    good = a[np.isfinite(a)]
    assert (f.vmin, f.vmax) == (0.0, 18.0)
    assert f.data[1, 2] == f.data[3, 4] == pytest.approx(good.mean())
    assert np.isfinite(f.data).all()
    with pytest.raises(FieldError, match=r"nonfinite='drop': expected 'error' or 'mask'"):
        read_field(tmp_path / "n.npy", nonfinite="drop")


def test_a_missing_file_an_empty_and_an_all_missing_field_are_named(tmp_path: Path) -> None:
    with pytest.raises(FieldError, match=r"nope\.nc, variable 'T': no such file \(expected a netCDF") as e:
        read_field(tmp_path / "nope.nc", "T")
    assert e.value.path == str(tmp_path / "nope.nc")
    np.save(tmp_path / "e.npy", np.zeros((0, 3), dtype=np.float32))
    with pytest.raises(FieldError, match=r"e\.npy: empty \(shape \(0, 3\)\)"):
        read_field(tmp_path / "e.npy")
    with netCDF4.Dataset(tmp_path / "m.nc", "w", format="NETCDF3_CLASSIC") as ds:
        ds.createDimension("x", 4)
        v = ds.createVariable("v", "f4", ("x",), fill_value=-9.0)
        v[:] = np.full(4, -9.0)
    with pytest.raises(FieldError, match=r"m\.nc, variable 'v': all 4 values are missing \(fill value -9\)"):
        read_field(f"{tmp_path / 'm.nc'}:v")


def test_netcdf_integers_need_a_dtype_and_packed_values_are_unpacked(tmp_path: Path) -> None:
    path = tmp_path / "i.nc"
    counts = np.arange(12, dtype=np.int16).reshape(3, 4)
    with netCDF4.Dataset(path, "w", format="NETCDF4") as ds:
        ds.createDimension("y", 3)
        ds.createDimension("x", 4)
        ds.createVariable("counts", "i2", ("y", "x"))[:] = counts
        p = ds.createVariable("packed", "i2", ("y", "x"), fill_value=np.int16(-32767))
        p.scale_factor, p.add_offset, p.units = 0.5, 100.0, "K"
        p[:] = np.ma.masked_array(100.0 + 0.5 * counts, mask=counts == 5)
        ds.createVariable("z", "f8", ("y", "x"))[:] = counts  # a float64 variable
    assert path.read_bytes()[:4] == b"\x89HDF"
    with pytest.raises(
        FieldError,
        match=r"i\.nc, variable 'counts': unsupported dtype int16 .*pass dtype='f32' \(or 'f64'\) to convert",
    ) as e:
        read_field(path, "counts")
    assert e.value.variable == "counts"
    f = read_field(path, "counts", dtype="f32")
    assert f.dtype == np.float32
    np.testing.assert_array_equal(f.data, counts)
    packed = read_field(f"{path}:packed")
    assert packed.dtype == np.float64
    assert packed.units == "K"
    assert packed.mask is not None
    assert not packed.mask[1, 1]
    assert packed.valid == 11
    direct = _netcdf(path, "packed")
    _check_against(packed, direct)
    assert read_field(path, "z").dtype == np.float64


def test_plain_hdf5_is_read_with_h5py(tmp_path: Path) -> None:
    path = tmp_path / "plain.h5"
    t = np.linspace(250, 300, 60, dtype=np.float32).reshape(6, 10)
    t[0, 0] = -999.0
    t[5, 9] = 1e6  # above valid_max
    with h5py.File(path, "w") as h:
        d = h.create_dataset("grp/temp", data=t)
        d.attrs["_FillValue"] = np.float32(-999.0)
        d.attrs["valid_max"] = np.float32(400.0)
        d.attrs["units"] = "K"
        s = h.create_dataset("scaled", data=np.arange(6, dtype=np.int16).reshape(2, 3))
        s.attrs["scale_factor"] = 0.25
        s.attrs["add_offset"] = -1.0
        h.create_dataset("cplx", data=np.ones((2, 2), dtype=np.complex64))
    f = read_field(f"{path}:grp/temp")
    assert f.name == "plain:grp/temp"
    assert f.units == "K"
    assert f.fill_value == -999.0
    assert f.mask is not None
    assert f.valid == 58
    assert not f.mask[0, 0]
    assert not f.mask[5, 9]
    with h5py.File(path, "r") as h:
        direct = np.asarray(h["grp/temp"][()])
    np.testing.assert_array_equal(f.data[f.mask], direct[f.mask])
    sc = read_field(path, "scaled")
    assert sc.dtype == np.float64
    np.testing.assert_array_equal(sc.data, np.arange(6).reshape(2, 3) * 0.25 - 1.0)
    with pytest.raises(FieldError, match=r"plain\.h5, variable 'cplx': unsupported dtype complex64"):
        read_field(path, "cplx")
    with pytest.raises(FieldError, match=r"plain\.h5: variable 'grp' is a group, not a dataset; its datasets are"):
        read_field(path, "grp")
    with pytest.raises(FieldError, match=r"variable 'nope' does not exist; its datasets are .*grp/temp\(6, 10\)"):
        read_field(path, "nope")
    names = [v["name"] for v in list_variables(path)]
    assert names == ["cplx", "grp/temp", "scaled"]


# -- testdata/fetch.py's [files.NAME] ---------------------------------------------------------


def test_fetch_extracts_one_file_of_a_deb_and_of_a_wheel(fetch: Any, tmp_path: Path) -> None:
    payload = b"CDF\x01" + bytes(range(256)) * 8
    root = tmp_path / "debroot"
    (root / "DEBIAN").mkdir(parents=True)
    (root / "DEBIAN" / "control").write_text(
        "Package: t\nVersion: 1\nArchitecture: all\nMaintainer: t <t@t>\nDescription: t\n"
    )
    (root / "usr" / "share" / "d").mkdir(parents=True)
    (root / "usr" / "share" / "d" / "field.cdf").write_bytes(payload)
    (root / "usr" / "share" / "d" / "other.cdf").write_bytes(b"x")
    deb = tmp_path / "t.deb"
    subprocess.run(["dpkg-deb", "--build", "--root-owner-group", str(root), str(deb)], check=True, capture_output=True)
    whl = tmp_path / "w.whl"
    with zipfile.ZipFile(whl, "w") as z:
        z.writestr("pkg/data/a.nc", payload[::-1])
    sha = hashlib.sha256(payload).hexdigest()
    specs = {
        "f": {"from": "t", "path": "usr/share/d/field.cdf", "sha256": sha, "what": "a field"},
        "w": {"from": "w", "path": "pkg/data/a.nc", "sha256": hashlib.sha256(payload[::-1]).hexdigest(), "what": "w"},
    }
    out = tmp_path / "out"
    out.mkdir()
    got = fetch.extract_files(specs, {"t": deb, "w": whl}, out, Path("m.toml"))
    assert (out / "f.cdf").read_bytes() == payload
    assert (out / "w.nc").read_bytes() == payload[::-1]
    assert got["f"] == {"file": "f.cdf", "sha256": sha, "bytes": len(payload), "what": "a field", "kind": "file"}
    assert not list(out.glob("*.tmp"))
    bad = {"f": {**specs["f"], "path": "usr/share/d/feild.cdf"}}
    with pytest.raises(
        fetch.FetchError,
        match=r"\[files\.f\]: package `t` .*has no file 'usr/share/d/feild\.cdf'; near matches: usr/share/d/field\.cdf",
    ):
        fetch.extract_files(bad, {"t": deb}, tmp_path, Path("m.toml"))
    with pytest.raises(
        fetch.FetchError, match=r"\[files\.f\]: SHA-256 .* of usr/share/d/field\.cdf in t\.deb, expected 0+"
    ):
        fetch.extract_files({"f": {**specs["f"], "sha256": "0" * 64}}, {"t": deb}, tmp_path, Path("m.toml"))
    assert not (tmp_path / "f.cdf").exists()
    with pytest.raises(fetch.FetchError, match=r"\[files\.f\]: unknown keys `form`, `url` \(expected what, from, path"):
        fetch.extract_files({"f": {**specs["f"], "form": 1, "url": 2}}, {"t": deb}, tmp_path, Path("m.toml"))
    with pytest.raises(fetch.FetchError, match=r"\[files\.f\]: `from` must name one package of \['t'\], got 'x'"):
        fetch.extract_files({"f": {**specs["f"], "from": "x"}}, {"t": deb}, tmp_path, Path("m.toml"))


def test_the_module_reads_by_magic_bytes_not_names(tmp_path: Path, lossy: Path) -> None:
    # A netCDF file named .npy is still netCDF, and an .nc name does not make raw bytes netCDF.
    (tmp_path / "x.npy").write_bytes((lossy / "coads_climatology.cdf").read_bytes())
    assert read_field(tmp_path / "x.npy", "SST").shape == (12, 90, 180)
    np.zeros(8, dtype="<f4").tofile(tmp_path / "z.nc")
    assert fields.file_kind(str(tmp_path / "z.nc")) == "raw"
    assert read_field(tmp_path / "z.nc", dtype="f32", shape=(2, 4)).shape == (2, 4)


# -- cut and lying files: the fuzz classes of truncated netCDF3 and huge declared shapes ---------

NC3_FILES = ["trinidad.nc", "coads_climatology.cdf", "etopo5.cdf", "levitus_climatology.cdf"]


@pytest.mark.parametrize("fname", NC3_FILES)
def test_a_truncated_netcdf3_file_is_refused_at_every_cut(lossy: Path, tmp_path: Path, fname: str) -> None:
    """netCDF-C reads past the end of a short classic file as fill values, so without a size
    check a cut copy read as a complete field. Cuts through the header, the data and the very
    last byte are all refused, by `read_field` (lossy info/compress) and `list_variables`."""
    whole = (lossy / fname).read_bytes()
    n = len(whole)
    cuts = sorted({4, 200, 1000, n // 4, n // 2, n - 4096, n - 1, *range(7, n, max(1, n // 13))})
    cut = tmp_path / fname
    for k in cuts:
        cut.write_bytes(whole[:k])
        with pytest.raises(FieldError, match=r"cut short|not a valid netCDF3 header|netCDF4 cannot read") as e:
            read_field(cut)
        assert e.value.path == str(cut)
        with pytest.raises(FieldError, match=r"cut short|not a valid netCDF3 header|netCDF4 cannot read"):
            list_variables(cut)
    # The whole file still reads (its header's extents end exactly at its size).
    cut.write_bytes(whole)
    assert list_variables(cut)


def test_a_truncated_netcdf3_file_through_the_cli(
    lossy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from flashpress.cli import main

    whole = (lossy / "trinidad.nc").read_bytes()
    for k in (200, len(whole) // 2):
        cut = tmp_path / "t.nc"
        cut.write_bytes(whole[:k])
        for argv in (
            ["lossy", "info", f"{cut}:elevation"],
            ["lossy", "compress", f"{cut}:elevation", "--codec", "szx"],
        ):
            assert main(argv) == 2
            err = capsys.readouterr().err
            assert "cut short" in err
            assert "Traceback" not in err


@pytest.mark.parametrize(
    "header",
    [
        "{'descr': '<f4', 'fortran_order': False, 'shape': (" + "9" * 40 + ",), }",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (100000, 100000, 100000), }",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (" + "(" * 3000 + "1" + ")" * 3000 + ",), }",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (" + "1, " * 20000 + "), }",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (-5, 4), }",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (5, 4), }",  # 80 bytes declared, 16 held
        "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 'x'), }",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 4",
    ],
)
def test_npy_headers_declaring_huge_or_bad_shapes(tmp_path: Path, header: str) -> None:
    text = header.encode() + b" " * (-(len(header) + 11) % 64) + b"\n"
    head = b"\x93NUMPY" + (
        b"\x01\x00" + len(text).to_bytes(2, "little")
        if len(text) < 65536
        else b"\x02\x00" + len(text).to_bytes(4, "little")
    )
    p = tmp_path / "f.npy"
    p.write_bytes(head + text + b"\x00" * 16)
    with pytest.raises(FieldError, match=r"f\.npy: ") as e:
        read_field(p)
    assert len(str(e.value)) < 1000


def test_never_written_and_oversized_hdf5_datasets(tmp_path: Path) -> None:
    p = tmp_path / "big.h5"
    with h5py.File(p, "w") as f:
        f.create_dataset("empty", shape=(1_000_000, 1_000_000), dtype="f4", chunks=(1000, 1000))
        big = f.create_dataset("big", shape=(1_000_000, 1_000_000), dtype="f4", chunks=(1000, 1000))
        big[:1000, :1000] = 1.0
    with pytest.raises(FieldError, match=r"1000000x1000000 was never written"):
        read_field(f"{p}:empty")
    with pytest.raises(FieldError, match=r"3,725\.3 GiB, more than this machine's"):
        read_field(f"{p}:big")
