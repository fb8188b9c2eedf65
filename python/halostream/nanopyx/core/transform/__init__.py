"""NanoPyx's nanopyx.core.transform Liquid Engine classes on halostream (liquid.h): ShiftAndMagnify,
GradientRobertsCross, RadialGradientConvergence and eSRRF, each in the module of NanoPyx's name."""
