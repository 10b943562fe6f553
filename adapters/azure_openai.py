"""The `azure-openai` adapter: Azure OpenAI through the openai SDK's own Azure client.

Why not the `openai` adapter with a base_url: Azure addresses a *deployment* (a name the user gave a model in
their resource), not a model: POST {endpoint}/openai/deployments/{deployment}/chat/completions?api-version=V,
with the key in an `api-key` header. `openai.AsyncAzureOpenAI` builds exactly that, so this adapter is the
`openai` adapter (same request body, same failure classification, same key masking) with that client.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import openai

from harness.adapters.openai_chat import DEFAULT_TIMEOUT_S, HTTP_CLIENT_HTTPX, OpenAIChatAdapter
from harness.core.errors import ConfigError

#: The GA data-plane API version the preset uses (a targets.toml `api_version` overrides it).
DEFAULT_API_VERSION = "2024-10-21"


class AzureOpenAIAdapter(OpenAIChatAdapter):
    """Settings: endpoint (https://RESOURCE.openai.azure.com, required), deployment (required), api_version,
    and the `openai` adapter's generation settings (temperature, max_tokens, system_prompt, ...)."""

    kind = "azure-openai"
    speaks_wire = False  # Azure's deployment URLs, api-version and api-key header: the SDK's AsyncAzureOpenAI

    def __init__(self, name: str, settings: Mapping[str, Any] | None = None, *,
                 secrets: Mapping[str, str] | None = None) -> None:
        settings = dict(settings or {})
        for key in ("endpoint", "deployment"):
            if not settings.get(key):
                raise ConfigError(f"Target '{name}' (azure-openai adapter) needs its {key}: set {key} = \"...\" "
                                  f"under [targets.{name}] in targets.toml.")
        settings.setdefault("api_version", DEFAULT_API_VERSION)
        settings.setdefault("model", settings["deployment"])  # the body's model; Azure routes by the path
        super().__init__(name, settings, secrets=secrets)

    def _new_client(self) -> openai.AsyncAzureOpenAI:
        timeout = float(self.settings.get("timeout_s") or DEFAULT_TIMEOUT_S)
        http_client = (openai.DefaultAioHttpClient(timeout=timeout)
                       if self.http_client != HTTP_CLIENT_HTTPX else None)
        return openai.AsyncAzureOpenAI(
            api_key=self._api_key,
            azure_endpoint=str(self.settings["endpoint"]),
            azure_deployment=str(self.settings["deployment"]),
            api_version=str(self.settings["api_version"]),
            max_retries=0,
            timeout=timeout,
            http_client=http_client,
        )
