"""Chat completions for the judge through the `openai` SDK, so any compatible server works
(hosted APIs, vLLM, Ollama, a gateway).

Every request is made with temperature 0 and a seed (the sample index added to the run's seed).
Structured output: a JSON-schema `response_format` where the server takes it; a server that
answers 400 to it is asked with `json_object`, then with the prompt's request for JSON alone,
and the mode that worked is kept for that model. A reply is validated (pydantic, by the
caller's `validate`); an invalid one gets one repair request naming the problem. 429, 5xx,
connection errors and time-outs are retried with exponential back-off (a `Retry-After` header is
honoured); the SDK's own retries are off so every attempt is counted. A semaphore bounds the
requests in flight. Valid replies are cached on disk (`cache.ReplyCache`). Tokens and cost
(prices per model, USD per million tokens) are counted per call and per run.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict

from smellkit.judge.cache import ReplyCache, cache_key, prompt_hash
from smellkit.judge.errors import JudgeError, JudgeExtraMissing, ServerError
from smellkit.judge.reply import ReplyError

T = TypeVar("T")
Mode = Literal["json_schema", "json_object", "prompt"]
Structured = Literal["auto", "json_schema", "json_object", "prompt"]
MODES: tuple[Mode, ...] = ("json_schema", "json_object", "prompt")
BASE_URL_ENV = ("SMELLKIT_JUDGE_BASE_URL", "OPENAI_BASE_URL")
API_KEY_ENV = ("SMELLKIT_JUDGE_API_KEY", "OPENAI_API_KEY")
MODEL_ENV = "SMELLKIT_JUDGE_MODEL"
CUT_OFF = "the reply was cut off at the token limit; keep each justification to one sentence"
REPAIR = ("Your reply is not a valid answer: {problem}. Answer again with only the JSON object "
          "in the shape asked for, every score a number from 0 to 10.")


class Usage(BaseModel):
    """Requests, tokens and cost of one call, one verdict or one run."""

    model_config = ConfigDict(extra="forbid")

    requests: int = 0
    """HTTP requests sent (retries and repair requests included)."""
    retries: int = 0
    repairs: int = 0
    cached: int = 0
    """Replies served from the disk cache (no request)."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = 0.0
    """None when the price of a model used is not known."""
    seconds: float = 0.0

    def add(self, other: Usage) -> None:
        for name in ("requests", "retries", "repairs", "cached", "prompt_tokens",
                     "completion_tokens"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.cost_usd = None if self.cost_usd is None or other.cost_usd is None else \
            round(self.cost_usd + other.cost_usd, 6)
        self.seconds = round(self.seconds + other.seconds, 3)


@dataclass(frozen=True)
class Price:
    """USD per million tokens."""

    prompt: float
    completion: float


def parse_price(text: str) -> tuple[str, Price]:
    """`MODEL=IN,OUT` (USD per million prompt and completion tokens)."""
    model, _, numbers = text.rpartition("=")
    parts = numbers.split(",")
    try:
        if not model or len(parts) != 2:
            raise ValueError
        return model, Price(float(parts[0]), float(parts[1]))
    except ValueError:
        raise JudgeError(f"price {text!r} is not MODEL=IN,OUT",
                         hint="e.g. --price gpt-4o=2.5,10 (USD per million tokens)") from None


@dataclass
class ClientOptions:
    """Where the server is and how to ask it. `base_url` and `api_key` default to the
    environment (`SMELLKIT_JUDGE_BASE_URL`, else `OPENAI_BASE_URL`; `SMELLKIT_JUDGE_API_KEY`,
    else `OPENAI_API_KEY`, else a placeholder that local servers accept)."""

    base_url: str | None = None
    api_key: str | None = None
    timeout: float = 120.0
    """Seconds one request may take before it is cut off and retried."""
    retries: int = 4
    backoff: float = 1.0
    """Seconds before the first retry; doubled each time, at most `MAX_BACKOFF`."""
    concurrency: int = 4
    seed: int = 0
    max_tokens: int = 2048
    structured: Structured = "auto"
    prices: Mapping[str, Price] = field(default_factory=dict)
    cache: ReplyCache = field(default_factory=ReplyCache)


MAX_BACKOFF = 60.0


@dataclass(frozen=True)
class Outcome(Generic[T]):
    """A validated reply, its raw text and what getting it cost."""

    value: T
    text: str
    usage: Usage
    prompt_hash: str
    cached: bool = False


def _first_env(names: tuple[str, ...]) -> str | None:
    return next((os.environ[name] for name in names if os.environ.get(name)), None)


class JudgeClient:
    """One OpenAI-compatible server, shared by every thread of a run."""

    def __init__(self, options: ClientOptions | None = None):
        try:
            import openai
        except ImportError as error:
            raise JudgeExtraMissing("openai") from error
        self.options = options or ClientOptions()
        self._openai = openai
        self.base_url = self.options.base_url or _first_env(BASE_URL_ENV)
        self._client = openai.OpenAI(
            base_url=self.base_url, api_key=self.options.api_key or _first_env(API_KEY_ENV)
            or "not-needed", timeout=self.options.timeout, max_retries=0)
        self._slots = threading.BoundedSemaphore(max(1, self.options.concurrency))
        self._lock = threading.Lock()
        self._modes: dict[str, Mode] = {}
        self.totals = Usage()
        """Everything this client spent (cached replies counted under `cached` only)."""

    # -- the public call ------------------------------------------------------------------

    def ask(self, messages: list[dict[str, str]], *, model: str, sample: int,
            schema: dict[str, Any] | None, schema_name: str,
            validate: Callable[[str], T]) -> Outcome[T]:
        """A validated reply to `messages` from `model`, from the cache when it is there.
        Raises ReplyError (after the repair request) or ServerError."""
        digest = prompt_hash(messages, schema)
        key = cache_key(model, digest, sample)
        entry = self.options.cache.get(key)
        if entry is not None:
            try:
                value = validate(entry["text"])
            except ReplyError:
                entry = None
            else:
                usage = Usage(cached=1, cost_usd=0.0)
                self._count(usage)
                return Outcome(value, entry["text"], usage, digest, cached=True)
        usage = Usage()
        try:
            text, cut = self._complete(messages, model, sample, schema, schema_name, usage)
            try:
                if cut:
                    raise ReplyError(CUT_OFF)
                value = validate(text)
            except ReplyError as problem:
                usage.repairs += 1
                repair = [*messages, {"role": "assistant", "content": text},
                          {"role": "user", "content": REPAIR.format(problem=problem)}]
                text, cut = self._complete(repair, model, sample, schema, schema_name, usage)
                if cut:
                    raise ReplyError(CUT_OFF) from None
                value = validate(text)
        finally:
            self._count(usage)
        self.options.cache.put(key, {"model": model, "prompt_hash": digest, "sample": sample,
                                     "text": text, "usage": usage.model_dump()})
        return Outcome(value, text, usage, digest)

    def _count(self, usage: Usage) -> None:
        with self._lock:
            self.totals.add(usage)

    # -- one completion, retried ------------------------------------------------------------

    def _mode(self, model: str, schema: dict[str, Any] | None) -> Mode:
        if schema is None:
            return "prompt"
        wanted = self.options.structured
        if wanted != "auto":
            return wanted
        with self._lock:
            return self._modes.get(model, "json_schema")

    def _fall_back(self, model: str, mode: Mode) -> bool:
        """After a 400 to `mode`: use the next mode for this model (auto only)."""
        if self.options.structured != "auto" or mode == "prompt":
            return False
        with self._lock:
            self._modes[model] = MODES[MODES.index(mode) + 1]
        return True

    def _request(self, messages: list[dict[str, str]], model: str, sample: int,
                 schema: dict[str, Any] | None, schema_name: str, mode: Mode) -> Any:
        extra: dict[str, Any] = {}
        if mode == "json_schema" and schema is not None:
            extra["response_format"] = {"type": "json_schema", "json_schema": {
                "name": schema_name, "schema": schema, "strict": False}}
        elif mode == "json_object":
            extra["response_format"] = {"type": "json_object"}
        with self._slots:
            return self._client.chat.completions.create(
                model=model, messages=messages,  # type: ignore[arg-type]
                temperature=0, seed=self.options.seed + sample,
                max_tokens=self.options.max_tokens, **extra)

    def _complete(self, messages: list[dict[str, str]], model: str, sample: int,
                  schema: dict[str, Any] | None, schema_name: str, usage: Usage
                  ) -> tuple[str, bool]:
        """The reply's text, and whether it was cut off at the token limit."""
        openai = self._openai
        attempt = 0
        while True:
            mode = self._mode(model, schema)
            started = time.perf_counter()
            usage.requests += 1
            try:
                response = self._request(messages, model, sample, schema, schema_name, mode)
            except openai.BadRequestError as error:
                if self._fall_back(model, mode):
                    continue
                raise ServerError(f"the judge server refused the request: {error}",
                                  path=self.base_url) from error
            except (openai.RateLimitError, openai.InternalServerError, openai.APITimeoutError,
                    openai.APIConnectionError) as error:
                usage.seconds = round(usage.seconds + time.perf_counter() - started, 3)
                if attempt >= self.options.retries:
                    raise ServerError(f"the judge server failed {attempt + 1} times, last: "
                                      f"{type(error).__name__}: {error}",
                                      path=self.base_url) from error
                time.sleep(self._delay(error, attempt))
                attempt += 1
                usage.retries += 1
                continue
            except openai.APIStatusError as error:
                if error.status_code >= 500 and attempt < self.options.retries:  # 5xx, no class
                    time.sleep(self._delay(error, attempt))
                    attempt += 1
                    usage.retries += 1
                    continue
                raise ServerError(f"the judge server answered {error.status_code}: {error}",
                                  path=self.base_url,
                                  hint="check the model name, the key and --base-url") \
                    from error
            usage.seconds = round(usage.seconds + time.perf_counter() - started, 3)
            self._usage(response, model, usage)
            choice = response.choices[0] if response.choices else None
            text = (choice.message.content or "") if choice is not None else ""
            return text, choice is not None and choice.finish_reason == "length"

    def _delay(self, error: Exception, attempt: int) -> float:
        response = getattr(error, "response", None)
        header = response.headers.get("retry-after") if response is not None else None
        try:
            if header is not None:
                return min(float(str(header)), MAX_BACKOFF)
        except ValueError:
            pass
        return min(self.options.backoff * float(2 ** attempt), MAX_BACKOFF)

    def _usage(self, response: Any, model: str, usage: Usage) -> None:
        counted = getattr(response, "usage", None)
        prompt = int(getattr(counted, "prompt_tokens", 0) or 0)
        completion = int(getattr(counted, "completion_tokens", 0) or 0)
        usage.prompt_tokens += prompt
        usage.completion_tokens += completion
        price = self.options.prices.get(model)
        if price is None:
            usage.cost_usd = None
        elif usage.cost_usd is not None:
            usage.cost_usd = round(usage.cost_usd + (prompt * price.prompt
                                                     + completion * price.completion) / 1e6, 6)
