"""python -m tilegemm: which library this package found, its version, the device check, and a
five-line example, run when there is a Hopper GPU and torch. Exit 0 whenever the package and the
library load (no GPU is not an error here); 1 when the library cannot be loaded."""
import sys

import tilegemm
from tilegemm import capi

EXAMPLE = '''import torch, tilegemm
x = torch.randn(4096, 7168, device="cuda", dtype=torch.bfloat16)   # A [M, K]
w = torch.randn(2112, 7168, device="cuda", dtype=torch.bfloat16)   # B [N, K], like nn.Linear.weight
y = tilegemm.gemm(x, w)                                            # x @ w.T: [4096, 2112] bf16
print((y.float() - (x @ w.T).float()).abs().max())                 # vs PyTorch'''


def main() -> int:
    print(f"tilegemm (Python) {tilegemm.__version__}")
    try:
        print(f"library: {capi.library_path()} (libtilegemm {capi.version()})")
    except capi.LibraryNotFoundError as e:
        print(f"library: not loaded: {e}")
        return 1
    print(f"torch: {'yes, torch.ops.tilegemm.gemm is registered' if tilegemm.HAVE_TORCH else 'not installed'}")
    try:
        capi.check_device()
        device_ok = True
        print("device: a Hopper (compute capability 9.0) GPU is current")
    except capi.NoDeviceError as e:
        device_ok = False
        print(f"device: no_device: {e.message}")
    print("\nexample:\n" + EXAMPLE)
    if device_ok and tilegemm.HAVE_TORCH:
        print("\nrunning it:")
        exec(compile(EXAMPLE, "<tilegemm example>", "exec"), {})
    return 0


if __name__ == "__main__":
    sys.exit(main())
