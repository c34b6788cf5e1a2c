# Type stubs of the clsort package (its docstrings are in __init__.py).
from typing import Any, Optional, Tuple, TypedDict

import numpy as np
from numpy.typing import ArrayLike, NDArray

class Error(RuntimeError): ...

class Device(TypedDict):
    spec: str
    platform: str
    name: str
    kind: str
    profile: Optional[str]
    profile_match: str

def sort(a: ArrayLike, axis: Optional[int] = -1, *, descending: bool = False,
         device: str = "") -> NDArray[Any]: ...
def argsort(a: ArrayLike, axis: Optional[int] = -1, *, descending: bool = False,
            device: str = "") -> NDArray[np.int64]: ...
def sort_pairs(keys: ArrayLike, values: ArrayLike, axis: Optional[int] = -1, *,
               descending: bool = False, device: str = "") -> Tuple[NDArray[Any], NDArray[Any]]: ...
def devices() -> list[Device]: ...
def device_in_use(device: str = "") -> Tuple[str, Optional[str]]: ...
