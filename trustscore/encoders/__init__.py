"""Local encoder signals: fine-tuned cross-encoders that read (context, response) and say how well
the response is supported (LettuceDetect, HHEM-2.1-Open).

Importing this package is cheap: torch and transformers are imported when a model is loaded.
"""

# TODO(lead, at merge with trustscore/registry.py): register both as local signals, e.g.
#   register_signal("lettucedetect", config=LettuceDetectConfig, kind="local")(build_lettucedetect)
#   register_signal("hhem", config=HHEMConfig, kind="local")(build_hhem)
# (TOML sections [signals.lettucedetect] / [signals.hhem]; both factories ignore ctx.)

from trustscore.encoders.hhem import HHEMConfig, HHEMSignal, build_hhem
from trustscore.encoders.lettucedetect import LettuceDetectConfig, LettuceDetectSignal, build_lettucedetect

__all__ = [
    "HHEMConfig",
    "HHEMSignal",
    "LettuceDetectConfig",
    "LettuceDetectSignal",
    "build_hhem",
    "build_lettucedetect",
]
