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
def sort_(arr: Any, *, descending: bool = False, out: Any = None) -> Any: ...
def sort_pairs_(keys: Any, values: Any, *, descending: bool = False,
                out: Optional[Tuple[Any, Any]] = None) -> Tuple[Any, Any]: ...
def tune(device: str = "", *, budget: str = "10m", classes: Optional[str] = None,
         sizes: Optional[str] = None, output: Optional[str] = None, space: Optional[str] = None,
         into: Optional[str] = None, key_range: Optional[str] = None) -> str: ...
