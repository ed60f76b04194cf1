"""A dynamically quantised (int8) ONNX export of the packaged sentence model, built at first use and cached.

The export runs the model's own transformer module (loaded through sentence-transformers, as the fp32 encoder
does) through ``torch.onnx.export``, then ONNX Runtime's ``quantize_dynamic``: weights become int8 and every
weight MatMul a ``MatMulInteger`` fed by ``DynamicQuantizeLinear`` (activations quantised per batch at run
time). Nothing is downloaded.

The file is cached under ``$AEM_CACHE_DIR`` (else ``$XDG_CACHE_HOME/aem-monitor``, else
``~/.cache/aem-monitor``), named by a key over the model files, the recipe and the versions of the exporting
packages, so a stale file is never used. A sidecar holds the file's sha256: a missing or corrupt file is
rebuilt. Files are written to a temporary name and renamed, so processes racing to build it are safe.
Reading a cached file imports neither torch nor onnx.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import cast

import structlog

from monitor.disk_cache import CACHE_DIR_ENV as CACHE_DIR_ENV
from monitor.disk_cache import cache_dir, file_sha256, package_version

log = structlog.get_logger(__name__)

_OPSET = 17
_MODEL_FILES = ("config.json", "model.safetensors", "pytorch_model.bin", "tokenizer.json")
_KEY_PACKAGES = ("torch", "transformers", "onnx", "onnxruntime")


class ExportFailed(RuntimeError):
    """The int8 export could not be built or cached here."""


@dataclass(frozen=True)
class Recipe:
    """The ``quantize_dynamic`` settings; see docs/embeddings.md for how they were chosen."""

    weight_type: str = "QInt8"
    per_channel: bool = True
    reduce_range: bool = False
    op_types: tuple[str, ...] = ("MatMul",)
    exclude: str | None = r"/layer\.\d+/output/dense/"  # nodes left in fp32 (regex): each layer's FFN output


RECIPE = Recipe()


def export_key(model_dir: Path, recipe: Recipe | None = RECIPE) -> str:
    """A digest of what the export depends on: model files, recipe, exporter versions."""
    digest = hashlib.sha256()
    for name in _MODEL_FILES:
        path = model_dir / name
        if path.is_file():
            digest.update(name.encode())
            digest.update(file_sha256(path).encode())
    digest.update(json.dumps(asdict(recipe) if recipe is not None else "fp32", sort_keys=True).encode())
    for package in _KEY_PACKAGES:
        digest.update(f"{package}={_version(package)}".encode())
    digest.update(f"opset={_OPSET}".encode())
    return digest.hexdigest()[:20]


def cached_int8_model(model_dir: str, recipe: Recipe | None = RECIPE) -> tuple[Path, str]:
    """The cached int8 file of ``model_dir`` and its sha256, exporting it first if absent or corrupt.

    ``recipe`` None: the fp32 export itself, not quantised (the ``onnx`` encoder: torch's vectors, to float
    rounding, on ONNX Runtime)."""
    folder = cache_dir()
    precision = "int8" if recipe is not None else "fp32"
    target = folder / f"{Path(model_dir).name}-{precision}-{export_key(Path(model_dir), recipe)}.onnx"
    sidecar = target.with_suffix(".sha256")
    sha = _valid_sha(target, sidecar)
    if sha is not None:
        return target, sha
    log.info("int8_export_building", model=model_dir, target=str(target))
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=folder, prefix=".export-") as tmp:
            fp32, int8 = Path(tmp) / "fp32.onnx", Path(tmp) / "int8.onnx"
            export_fp32(model_dir, fp32)
            if recipe is None:
                int8 = fp32
            else:
                quantise(fp32, int8, recipe)
            sha = file_sha256(int8)
            os.replace(int8, target)
            (Path(tmp) / "sha256").write_text(sha)
            os.replace(Path(tmp) / "sha256", sidecar)
    except Exception as exc:  # any failure of torch / onnx / the file system: the caller falls back
        raise ExportFailed(f"int8 export of {model_dir} failed: {type(exc).__name__}: {exc}") from exc
    log.info("int8_export_cached", target=str(target), sha256=sha)
    return target, sha


def export_fp32(model_dir: str, out: Path) -> None:
    """The model's transformer (token embeddings out) as an fp32 ONNX graph with dynamic batch and length."""
    import warnings

    import torch
    from sentence_transformers import SentenceTransformer

    class LastHiddenState(torch.nn.Module):
        def __init__(self, model: torch.nn.Module) -> None:
            super().__init__()
            self.model = model

        def forward(self, ids: torch.Tensor, mask: torch.Tensor, types: torch.Tensor) -> torch.Tensor:
            return self.model(input_ids=ids, attention_mask=mask, token_type_ids=types).last_hidden_state

    transformer = cast(torch.nn.Module, SentenceTransformer(model_dir, device="cpu")[0].auto_model).eval()
    names = ["input_ids", "attention_mask", "token_type_ids"]
    sample = tuple(torch.ones((2, 8), dtype=torch.int64) for _ in names)
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            LastHiddenState(transformer),
            sample,
            str(out),
            input_names=names,
            output_names=["last_hidden_state"],
            dynamic_axes={n: {0: "batch", 1: "tokens"} for n in [*names, "last_hidden_state"]},
            opset_version=_OPSET,
            dynamo=False,
        )


def quantise(fp32: Path, out: Path, recipe: Recipe = RECIPE) -> None:
    """ONNX Runtime's dynamic quantisation of ``fp32`` into ``out`` by ``recipe``."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    nodes = [n.name for n in onnx.load(str(fp32), load_external_data=False).graph.node]
    exclude = [n for n in nodes if recipe.exclude and re.search(recipe.exclude, n)]
    quantize_dynamic(
        str(fp32),
        str(out),
        weight_type=QuantType[recipe.weight_type],
        per_channel=recipe.per_channel,
        reduce_range=recipe.reduce_range,
        op_types_to_quantize=list(recipe.op_types),
        nodes_to_exclude=exclude,
        extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
    )


def _valid_sha(target: Path, sidecar: Path) -> str | None:
    """The cached file's sha256 if file and sidecar exist and agree, else None (with a note if corrupt)."""
    try:
        if not (target.is_file() and sidecar.is_file()):
            return None
        expected = sidecar.read_text().strip()
        if file_sha256(target) == expected:
            return expected
    except OSError as exc:  # unreadable: try to build it again (and fall back if that fails too)
        log.warning("int8_export_unreadable", target=str(target), error=str(exc))
        return None
    log.warning("int8_export_corrupt", target=str(target), action="rebuild")
    return None


_version = package_version
