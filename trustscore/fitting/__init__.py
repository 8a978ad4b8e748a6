"""Offline fitting, above the runtime signal families: a white-box signal's ReDeEP profile
(:mod:`trustscore.fitting.redeep`, from labeled rows: :mod:`trustscore.fitting.redeep_rows`) and the
LettuceDetect-style detector (:mod:`trustscore.fitting.detector`). What they fit is read back at run
time by the families through the fitted-model formats."""
