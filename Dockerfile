# AEM monitor image: `aem run` (default command) and `aem replay` (traffic generator).
#   docker build -t aem-monitor:0.1.0 .
FROM python:3.11.9-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    AEM_METRICS_PORT=9464 \
    AEM_METRICS_HOST=0.0.0.0 \
    AEM_CACHE_DIR=/opt/aem-cache

WORKDIR /app

# WordNet 3.0 (Debian's wordnet-base) for the reply comparator's lexical-substitution check; without it the
# check is off (one `wordnet_missing` warning).
RUN apt-get update && apt-get install -y --no-install-recommends wordnet-base && rm -rf /var/lib/apt/lists/*

# CPU-only torch first: an unpinned resolve would pull the multi-GB CUDA build.
RUN pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu

COPY pyproject.toml README.md ./
COPY monitor ./monitor
RUN pip install . && aem --help > /dev/null
# The ONNX exports of the packaged model (`onnx`: fp32, `int8`: quantised) are built here, once, into
# AEM_CACHE_DIR: user 10001 only reads them, so AEM_ENCODER=onnx|int8 starts without torch or a writable disk.
# The typed comparators' derived tables (WordNet's antonyms, the city gazetteer, pint's units) likewise.
RUN python -c "from monitor.embeddings.encoders import EncoderKind as K, load_encoder as load; \
[load(k).encode(['warm up']) for k in (K.ONNX, K.INT8)]" \
    && python -c "from monitor.scoring.warmup import warm_up; warm_up()" && chmod -R a+rX /opt/aem-cache

RUN useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin aem
USER 10001

EXPOSE 9464
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('AEM_METRICS_PORT', '9464'), timeout=4)"

ENTRYPOINT ["aem"]
CMD ["run"]
