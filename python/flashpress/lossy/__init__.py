"""Error-bounded lossy compression of scientific fields on the storage path.

Fields are read from netCDF, HDF5, ``.npy`` or raw files (``fields``), compressed for real on
this machine's cores by SZx-style (ours, in the Rust core), SZ3 (``pysz``) or ZFP (``zfpy``)
under an absolute, range-relative or fixed-ratio bound (``codecs``), and stored to or loaded
from a device whose time comes from the simulator (the NVMe SSD of the core, an HDD model) or
from real I/O to a path (``devices``, ``pipeline``). ``planner`` predicts which combination
wins before running it.
"""

#: The lossy codecs, here and not in ``codecs`` (which needs numpy) so that building the
#: ``flashpress`` command line (``lossy --codec`` choices) does not import numpy.
CODECS: tuple[str, ...] = ("szx", "sz3", "zfp")
