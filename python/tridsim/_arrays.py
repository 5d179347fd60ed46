"""Arrays for the compiled solvers: NumPy on the CPU, CuPy (or anything CuPy can view: objects
with __cuda_array_interface__ or CUDA DLPack capsules) on the GPU, and the mapping of an array's
axes onto the solvers' x-fastest lines (LineSet: extents and element strides, x stride 1)."""
import numpy as np

_FLOAT_TYPES = (np.float32, np.float64)
_DLPACK_CPU, _DLPACK_CUDA = 1, 2


def _cupy():
    try:
        import cupy
    except ImportError as e:
        raise TypeError("CUDA arrays need CuPy (import cupy failed: %s)" % e) from None
    return cupy


def as_solver_array(d, name="d"):
    """(xp, array): `d` itself as a NumPy or CuPy array (never a copy), or TypeError."""
    if isinstance(d, np.ndarray):
        return np, d
    if hasattr(d, "__cuda_array_interface__"):
        cupy = _cupy()
        return cupy, d if isinstance(d, cupy.ndarray) else cupy.asarray(d)
    if hasattr(d, "__dlpack__") and hasattr(d, "__dlpack_device__"):
        kind = d.__dlpack_device__()[0]
        if kind == _DLPACK_CUDA:
            return _cupy(), _cupy().from_dlpack(d)
        if kind == _DLPACK_CPU:
            return np, np.from_dlpack(d)
    raise TypeError("%s must be a NumPy array, a CuPy array or a CUDA array (__cuda_array_interface__ or DLPack) "
                    "to be solved in place (overwrite_d=True), not %s" % (name, type(d).__name__))


def right_hand_side(d, overwrite_d, ndim, order, name="d"):
    """(xp, the array to solve and return): d itself with overwrite_d (it must then be a writable
    float32 or float64 array), else a new dense array in `order` ("K": d's axis order): of any
    array-like NumPy converts, float32 kept, integers and other real types as float64."""
    if overwrite_d:
        xp, x = as_solver_array(d, name)
        require_real(x, name)
        if x.dtype.type not in _FLOAT_TYPES:
            raise TypeError("%s is %s: overwrite_d=True solves it in place, so it must be float32 or float64"
                            % (name, x.dtype))
        if xp is np and not x.flags.writeable:
            raise ValueError("%s is read-only; overwrite_d=True solves it in place" % name)
    else:
        try:
            xp, x = as_solver_array(d, name)
        except TypeError:  # a list, a scalar, ...: whatever NumPy makes an array of
            xp, x = np, np.asarray(d)
        require_real(x, name)
        x = x.astype(x.dtype if x.dtype.type in _FLOAT_TYPES else np.float64, order=order, copy=True)
    if x.ndim not in ndim:
        raise ValueError("%s must have %s dimensions, not %d" % (name, " or ".join(map(str, ndim)), x.ndim))
    return xp, x


def require_real(x, name):
    """TypeError unless array x holds real numbers (bool, integers or floats)."""
    if x.dtype.kind == "c":
        raise TypeError("%s is complex (%s): the solvers take real numbers; solve the real and imaginary parts "
                        "apart where the matrix is real" % (name, x.dtype))
    if x.dtype.kind not in "fiub":
        raise TypeError("%s must hold real numbers, not %s" % (name, x.dtype))


def require_finite(xp, x, name, shape, axis):
    """ValueError naming the first non-finite entry that a solve reads of coefficient x (as given,
    broadcasting to `shape`, whose lines run along `axis`; never expanded to it). a[0] and c[n-1]
    of every line are not read."""
    n = shape[axis]
    if name in ("a", "c") and n == 1:
        return  # a one-row line reads neither a nor c
    k = axis - (len(shape) - x.ndim)  # x's axis along the lines, or < 0 where x lacks it
    skip = {"a": 0, "c": -1}.get(name) if k >= 0 and x.shape[k] == n else None
    if skip is not None:  # (else every row reads x's one value along the lines)
        x = x[(slice(None),) * k + (slice(1, None) if skip == 0 else slice(None, -1),)]
    finite = xp.isfinite(x)
    if bool(finite.all()):
        return
    index = tuple(int(i) for i in xp.argwhere(~finite)[0])
    value = x[index].item()
    if skip == 0:
        index = index[:k] + (index[k] + 1,) + index[k + 1:]  # as x numbers it
    where = "%s[%s]" % (name, ", ".join(map(str, index))) if index else name
    raise ValueError("%s is %r: the coefficients must be finite" % (where, value))


def normalize_axis(axis, ndim):
    if not isinstance(axis, (int, np.integer)) or not -ndim <= axis < ndim:
        raise ValueError("axis %r is out of range for %d dimensions (valid: %d..%d)" % (axis, ndim, -ndim, ndim - 1))
    return int(axis) % ndim


def address(xp, x):
    return x.__array_interface__["data"][0] if xp is np else x.data.ptr


def line_set(shape, strides, itemsize, axis):
    """The lines along `axis` as an x-fastest LineSet ((n, stride, axis) with element strides and
    the numpy axis of each LineSet axis in `order`), or None when the memory is not one: every
    axis of more than one element needs a positive stride, the smallest one element, each next
    one at least the extent of the previous (padding allowed, no overlap)."""
    big = sorted((k for k in range(len(shape)) if shape[k] > 1), key=lambda k: strides[k])
    n, stride, span = [], [], 1
    for k in big:
        if strides[k] <= 0 or strides[k] % itemsize or strides[k] // itemsize < span:
            return None
        n.append(shape[k])
        stride.append(strides[k] // itemsize)
        span = stride[-1] * shape[k]
    if big and stride[0] != 1:
        return None
    order = big + [k for k in range(len(shape)) if shape[k] <= 1]
    while len(n) < 3:  # axes of one element (and missing ones) after the others
        n.append(1)
        stride.append(span)
    order += [None] * (3 - len(order))
    return (n, stride, order.index(axis)), order


def index_of(offset, lines, order):
    """The numpy index of element `offset` of an array mapped by line_set."""
    (n, stride, _), index = lines, {}
    for k in (2, 1, 0):
        i, offset = divmod(offset, stride[k]) if n[k] > 1 else (0, offset)
        if order[k] is not None:
            index[order[k]] = i
    return tuple(index[k] for k in sorted(index))


def compact_like(xp, x):
    """An uninitialised dense array with x's shape, dtype and axis order."""
    return xp.empty_like(x, order="K")
