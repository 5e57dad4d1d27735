// cmake/pch.h plus GoogleTest and GoogleMock, for the unit-test binaries.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cmake/pch.h"
