"""Local encoder signals: fine-tuned cross-encoders that read (context, response) and say how well
the response is supported (LettuceDetect, HHEM-2.1-Open).

Importing this package is cheap: torch and transformers are imported when a model is loaded.
"""

# Registration with the signal registry: trustscore/encoders/_signals.py ([signals.lettucedetect],
# [signals.hhem]).

from trustscore.encoders._hhem import HHEMConfig, HHEMSignal, build_hhem
from trustscore.encoders._lettucedetect import LettuceDetectConfig, LettuceDetectSignal, build_lettucedetect

__all__ = [
    "HHEMConfig",
    "HHEMSignal",
    "LettuceDetectConfig",
    "LettuceDetectSignal",
    "build_hhem",
    "build_lettucedetect",
]
