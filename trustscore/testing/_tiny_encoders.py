"""Tiny random checkpoints shaped like the real encoder models, for offline tests and benchmarks.

- :func:`save_tiny_lettucedetect`: a ModernBERT token classifier (2 labels) with a byte-level BPE
  tokenizer whose pair template is ``[CLS] A [SEP] B [SEP]``, as LettuceDetect checkpoints have.
- :func:`save_tiny_hhem`: a "foundation" directory (T5 config + tokenizer) and an HHEM directory
  whose ``model.safetensors`` holds a T5 token classifier under the ``t5.`` prefix, as HHEM-2.1-Open
  ships it.

Nothing is downloaded; both load with ``local_files_only=True`` like the real checkpoints.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from trustscore.testing._tiny import TINY_CORPUS

__all__ = ["build_bert_style_tokenizer", "save_tiny_hhem", "save_tiny_lettucedetect"]


def build_bert_style_tokenizer(*, vocab_size: int = 400) -> Any:
    """A byte-level BPE fast tokenizer with ``[CLS] A [SEP] (B [SEP])`` templates and offsets."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(TINY_CORPUS * 4, trainer=trainer)
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls), ("[SEP]", sep)],
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=tok,
        pad_token="[PAD]",
        unk_token="[UNK]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
    )


def save_tiny_lettucedetect(
    path: str | Path,
    *,
    hidden_size: int = 32,
    num_layers: int = 2,
    max_positions: int = 512,
    seed: int = 0,
    num_heads: int = 2,
    intermediate_size: int = 64,
) -> Path:
    """A random ModernBERT token classifier (labels: supported, hallucinated) and its tokenizer."""
    import torch
    from transformers import ModernBertConfig, ModernBertForTokenClassification

    tokenizer = build_bert_style_tokenizer()
    # transformers reads these from **kwargs, which its typed config does not declare
    config = ModernBertConfig(  # type: ignore[call-arg]
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        intermediate_size=intermediate_size,
        num_hidden_layers=num_layers,
        num_attention_heads=num_heads,
        max_position_embeddings=max_positions,
        pad_token_id=tokenizer.pad_token_id,
        cls_token_id=tokenizer.cls_token_id,
        sep_token_id=tokenizer.sep_token_id,
        bos_token_id=tokenizer.cls_token_id,
        eos_token_id=tokenizer.sep_token_id,
        num_labels=2,
        global_attn_every_n_layers=2,
        local_attention=64,
    )
    torch.manual_seed(seed)
    model = ModernBertForTokenClassification(config).eval()
    path = Path(path)
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def _t5_tokenizer() -> Any:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.Unigram())
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    trainer = trainers.UnigramTrainer(
        vocab_size=300, special_tokens=["<pad>", "</s>", "<unk>"], unk_token="<unk>", show_progress=False
    )
    tok.train_from_iterator(
        TINY_CORPUS * 4 + ["Determine if the hypothesis is true given the premise?"], trainer=trainer
    )
    eos = tok.token_to_id("</s>")
    tok.post_processor = processors.TemplateProcessing(
        single="$A </s>", pair="$A </s> $B </s>", special_tokens=[("</s>", eos)]
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token="<pad>", eos_token="</s>", unk_token="<unk>"
    )


def save_tiny_hhem(
    path: str | Path, *, d_model: int = 32, num_layers: int = 2, seed: int = 0
) -> tuple[Path, Path]:
    """Save ``(foundation_dir, hhem_dir)``: a random T5 config + tokenizer, and HHEM-layout weights."""
    import torch
    from safetensors.torch import save_file
    from transformers import T5Config, T5ForTokenClassification

    path = Path(path)
    tokenizer = _t5_tokenizer()
    # transformers reads decoder_start_token_id from **kwargs, which its typed config does not declare
    config = T5Config(  # type: ignore[call-arg]
        vocab_size=len(tokenizer),
        d_model=d_model,
        d_kv=8,
        d_ff=64,
        num_layers=num_layers,
        num_heads=4,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        decoder_start_token_id=tokenizer.pad_token_id,
        feed_forward_proj="gated-gelu",
    )
    foundation, hhem = path / "foundation", path / "hhem"
    config.save_pretrained(foundation)
    tokenizer.save_pretrained(foundation)
    torch.manual_seed(seed)
    config.num_labels = 2
    model = T5ForTokenClassification(config).eval()
    hhem.mkdir(parents=True, exist_ok=True)
    state = {
        f"t5.{k}": v.contiguous()
        for k, v in model.state_dict().items()
        if k != "transformer.encoder.embed_tokens.weight"
    }  # tied to transformer.shared
    save_file(state, str(hhem / "model.safetensors"))
    return foundation, hhem
