/* symonnx — umbrella header: include this one. */
#pragma once

#include "ir/graph.h"
#include "export/onnxio.h"
#include "export/tensorfiles.h"
