"""What gated reward code may name: the numpy, typing and `__future__` allowlists, and the attribute rules.

Numpy is served as an allowlist (`NUMPY_NAMES`, `SUBMODULE_NAMES`), never as "numpy minus a denylist": every
way to build an array view over memory the code does not own (the `ndarray` constructor and its subclasses,
`frombuffer`, `lib.stride_tricks`, `ctypeslib`, `nditer`, `dtype`, `empty`) is simply absent. Attribute names
are judged without knowing the receiver: a name that exists on some numpy object (`NUMPY_OBJECT_NAMES`) is
denied unless it is in `ALLOWED_ATTRIBUTES`; names numpy does not have (`state.obs`, `.body`, `dict.items`,
str methods) stay allowed, minus `FORBIDDEN_ATTRIBUTES`.
"""

from __future__ import annotations
import __future__

import types

import numpy


def words(text: str) -> list[str]:
    """The names in a block of text, one per word."""
    return text.split()


ALLOWED_MODULES = frozenset({"numpy", "numpy.linalg", "numpy.random", "numpy.typing", "math", "typing"})
"""Also `from __future__ import <feature>` (`FUTURE_NAMES`); every other import is a finding."""

NUMPY_FUNCTIONS = frozenset(
    words("""
    array asarray asanyarray ascontiguousarray copy zeros ones full zeros_like ones_like full_like arange linspace
    logspace geomspace eye identity diag diagflat tri tril triu meshgrid indices fromiter
    concatenate stack vstack hstack column_stack dstack split array_split append insert delete pad tile repeat
    reshape ravel transpose swapaxes moveaxis squeeze expand_dims atleast_1d atleast_2d atleast_3d broadcast_to
    flip fliplr flipud roll rot90 take take_along_axis choose compress select piecewise where clip nan_to_num
    sum prod mean median average std var min max amin amax ptp percentile quantile cumsum cumprod diff ediff1d
    gradient trapezoid nansum nanprod nanmean nanmedian nanstd nanvar nanmin nanmax nanargmin nanargmax
    nanpercentile nanquantile argmin argmax argsort sort unique searchsorted digitize histogram bincount
    count_nonzero nonzero argwhere flatnonzero all any isclose allclose array_equal array_equiv isscalar isreal
    iscomplex round around fix real imag angle unwrap sinc interp convolve correlate cov corrcoef cross dot vdot
    inner outer tensordot einsum kron trace diagonal shape ndim size polyfit polyval polyder polyint roots finfo
    iinfo isin intersect1d union1d setdiff1d isneginf isposinf unravel_index ravel_multi_index histogram2d
    cumulative_sum cumulative_prod concat permute_dims matrix_transpose apply_along_axis vectorize errstate
    tril_indices triu_indices lexsort trim_zeros nancumsum nancumprod real_if_close rollaxis hsplit vsplit
    block issubdtype iscomplexobj isrealobj
    """)
)
"""Numpy functions honest rewards use; ufuncs (`numpy.ufunc` instances: sin, exp, add, maximum, ...) come on
top, all of them: they compute elementwise on the arrays they are given."""

NUMPY_CONSTANTS = frozenset({"pi", "e", "inf", "nan", "newaxis", "euler_gamma"})
NUMPY_SCALAR_TYPES = frozenset(
    words("""
    bool bool_ int8 int16 int32 int64 uint8 uint16 uint32 uint64 intp uintp int_ uint float16 float32 float64
    half single double longdouble complex64 complex128 cdouble generic number integer signedinteger
    unsignedinteger inexact floating complexfloating
    """)
)
"""Scalar types: constructors from a value, dtypes (`np.float32`), and `isinstance` targets."""

GUARDED_TYPES = frozenset({"ndarray"})
"""Served as a stand-in type that answers `isinstance`/`issubclass` and refuses to be called: the real
constructor takes a buffer, strides and an offset."""

SUBMODULE_NAMES = {
    "linalg": frozenset(
        words("""
        norm inv pinv det slogdet solve lstsq eig eigh eigvals eigvalsh svd qr cholesky matrix_rank cond
        matrix_power multi_dot cross outer vector_norm matrix_norm LinAlgError
        """)
    ),
    "random": frozenset(
        words("""
        default_rng seed rand randn randint random random_sample uniform normal standard_normal choice
        permutation shuffle exponential
        """)
    ),
    "typing": frozenset({"NDArray", "ArrayLike", "DTypeLike"}),
}

TYPING_NAMES = frozenset(
    words("""
    Any Optional Union Dict List Tuple Set FrozenSet Sequence Mapping MutableMapping Iterable Iterator Callable
    Literal Final TypeVar cast TYPE_CHECKING SupportsFloat SupportsInt Collection Container Hashable Sized
    """)
)
"""Annotation names of `typing`; nothing that evaluates strings (`get_type_hints`) or builds classes
(`NamedTuple`, `TypedDict`)."""

FUTURE_NAMES = frozenset(__future__.all_feature_names)

ARRAY_ATTRIBUTES = frozenset(
    words("""
    T mT shape ndim size dtype itemsize nbytes real imag sum prod mean std var min max argmin argmax all any
    cumsum cumprod clip round copy ravel flatten reshape squeeze transpose swapaxes tolist item trace diagonal
    argsort sort nonzero dot astype conj conjugate repeat take searchsorted compress fill partition argpartition
    """)
)
"""Safe ndarray and numpy-scalar methods and properties. `astype` copies; `sort`/`fill`/`partition` write in
place into the array itself (a state array is read-only, so they raise there)."""

OTHER_NUMPY_ATTRIBUTES = frozenset(
    words("""
    reduce accumulate outer normal uniform integers random standard_normal choice permutation shuffle
    exponential gamma names kind name index count add is_integer as_integer_ratio bit_count numerator denominator
    split hex fromhex
    """)
)
"""Ufunc methods, random Generator methods, dtype fields read as plain values (`kind`, `name`, `names`), and
names honest code uses on Python objects (`list.index`, `set.add`, `str.split`, `float.is_integer`) that
numpy objects also have, harmlessly."""

FORBIDDEN_ATTRIBUTES = frozenset(
    words("""
    format format_map gi_frame gi_code gi_yieldfrom cr_frame cr_code cr_await ag_frame ag_code f_globals f_locals
    f_builtins f_back f_code tb_frame tb_next ctypes tofile dump dumps setflags flags base mro data cffi capsule
    bit_generator byte_bounds seterr seterrcall seterrobj geterrobj setbufsize set_string_function
    """)
)
"""Denied on every object: string formatting that walks attributes by name (`.format` has a narrow exception
for string literals, see policy), frame and code objects of generators, coroutines and tracebacks, native
pointers and callable native functions, `flags` (`f = x.flags; f["WRITEABLE"] = True`), process-wide numpy
state. `data` too: rewards read observations through `state.obs`, `state.qpos`, ..."""


def _numpy_object_names() -> frozenset[str]:
    """Every public attribute name of numpy's objects, its module, and the submodules that reach raw memory or
    that reward code might reach (`char`, `ma`, `fft`, ... are reachable from nothing served: not counted)."""
    x = numpy.zeros(2)
    objects: list[object] = [
        numpy,
        numpy.ndarray,
        numpy.generic,
        numpy.float64,
        numpy.int64,
        numpy.bool_,
        numpy.complex128,
        numpy.void,
        numpy.dtype,
        x.dtype,
        numpy.ufunc,
        numpy.flatiter,
        x.flat,
        x.flags,
        x.ctypes,
        numpy.nditer,
        numpy.broadcast,
        numpy.recarray,
        numpy.matrix,
        numpy.memmap,
        numpy.random.Generator,
        numpy.random.RandomState,
        numpy.random.BitGenerator,
        numpy.random.PCG64,
        numpy.random.SeedSequence,
    ]
    for name in ("lib", "linalg", "random", "ctypeslib", "rec"):
        module = getattr(numpy, name, None)
        if isinstance(module, types.ModuleType):
            objects.append(module)
    objects.append(getattr(numpy.lib, "stride_tricks", numpy.lib))
    return frozenset(name for obj in objects for name in dir(obj) if not name.startswith("_"))


def _numpy_names() -> frozenset[str]:
    ufuncs = {name for name in dir(numpy) if isinstance(getattr(numpy, name, None), numpy.ufunc)}
    wanted = NUMPY_FUNCTIONS | NUMPY_CONSTANTS | NUMPY_SCALAR_TYPES
    return frozenset({name for name in wanted if hasattr(numpy, name)} | ufuncs | GUARDED_TYPES)


NUMPY_NAMES = _numpy_names()
"""What `np.<name>` may name in reward code (submodules `linalg`, `random`, `typing` are reached by import)."""

NUMPY_OBJECT_NAMES = _numpy_object_names()

ALLOWED_ATTRIBUTES = (
    NUMPY_NAMES.union(ARRAY_ATTRIBUTES, OTHER_NUMPY_ATTRIBUTES, SUBMODULE_NAMES, *SUBMODULE_NAMES.values())
    - FORBIDDEN_ATTRIBUTES
    - {"resize", "view", "getfield", "setfield", "put", "strides", "flat", "byteswap", "tobytes", "newbyteorder"}
)
"""Allowed numpy attribute names: the served numpy names (a ufunc named `add` is also `set.add`), safe array
methods, ufunc and Generator methods. Memory-reaching names are taken out even where a served function shares
the name (`np.resize` copies, `x.resize(..., refcheck=False)` leaves dangling views). `typing`'s names are
no numpy names, so they need no entry."""

DENIED_NUMPY_ATTRIBUTES = NUMPY_OBJECT_NAMES - ALLOWED_ATTRIBUTES

MEMORY_HINTS = {
    "view": "`.view` reinterprets memory; use `x.astype(np.float64)` or `np.asarray(x, dtype=...)` (copies)",
    "resize": "`.resize` can leave dangling views; use `np.concatenate`, `np.pad` or `np.zeros(shape)` and copy",
    "getfield": "`.getfield` reads at a byte offset; index the array instead (`x[i]`, `x[a:b]`)",
    "setfield": "`.setfield` writes at a byte offset; build a new array (`np.where`, `np.concatenate`)",
    "strides": "strides describe raw memory; use `.shape`, `.reshape` and slicing",
    "flat": "use `x.ravel()` or `x.reshape(-1)`",
    "lib": "`np.lib` holds raw-memory tools (`stride_tricks`); use slicing or `np.concatenate`",
    "stride_tricks": "`as_strided`/`sliding_window_view` build views over raw memory; use slicing or `np.stack` of copies",
    "as_strided": "`as_strided` builds views over raw memory; use slicing or `np.stack` of copies",
    "sliding_window_view": "it builds views over raw memory; use slicing or `np.stack` of copies",
    "frombuffer": "arrays over foreign buffers are not allowed; use `np.array(values)`",
    "ctypeslib": "native pointers are not allowed; use numpy math on arrays",
    "nditer": "iterate with `for v in x.ravel():` or use vectorised numpy math",
    "at": "`ufunc.at` writes at indices in place; use `np.bincount(idx, weights, minlength)` or a loop",
    "dtype": "use a scalar type such as `dtype=np.float64`",
    "empty": "`np.empty` hands out uninitialised memory; use `np.zeros`",
    "empty_like": "`np.empty_like` hands out uninitialised memory; use `np.zeros_like`",
}
"""The repair hint for each memory-reaching name: what to use instead."""
