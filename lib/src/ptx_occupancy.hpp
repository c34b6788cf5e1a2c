// Asks NVIDIA's PTX assembler to fit several work-groups into each SM's registers.
#pragma once

#include <optional>
#include <vector>

namespace clsort::detail {

/// `binary` with `.minnctapersm groups` added to each kernel entry that declares its work-group
/// size (.reqntid; every clsort kernel does), if `binary` is PTX text as NVIDIA's OpenCL compiler
/// returns it; nullopt for any other binary (other vendors' drivers, where the hint has no
/// counterpart). The driver's assembler then caps each such kernel's registers so that `groups`
/// work-groups fit an SM together, spilling if it must; OpenCL C itself cannot ask for this.
std::optional<std::vector<unsigned char>> with_groups_per_sm(
    const std::vector<unsigned char>& binary, int groups);

}  // namespace clsort::detail
