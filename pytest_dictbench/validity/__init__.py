"""Rig validity, measured: calibration blocks, run order, speaker attribution and the
offline audit of a product's processing path. Pure functions, no pytest import."""
