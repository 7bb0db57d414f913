"""The rig: a methodology package (manifest, fixtures, integrity), its results CSV, live
capture, block calibration and every validity check (run order, speaker attribution, the
offline audit). Pure code, no pytest import; the rig's scoring is the method in
:mod:`pytest_dictbench.methods.rig`, its collector :mod:`pytest_dictbench.plugin.rig`."""
