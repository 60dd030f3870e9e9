// Every field of a DeviceProfile as JSON, in declaration order: the one key list that
// `tilegemm explain --json` ("device", plus its note) and the explorer's hardware panel (each
// profile, plus derived counts) both print, so a constant added to the time model shows in both.
#pragma once

#include <nlohmann/json.hpp>

#include "plan/device_profile.hpp"

namespace tilegemm::plan {

nlohmann::ordered_json device_profile_json(const DeviceProfile& d);

}  // namespace tilegemm::plan
