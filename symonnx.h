/* symonnx — umbrella header: include this one. */
#pragma once

#include "ir/graph.h"
