//! Machine translation providers, configured by the operator: the
//! LibreTranslate HTTP API (`POST {url}/translate`), or any
//! OpenAI-compatible chat-completions API (`POST {url}/chat/completions`:
//! OpenAI, and self-hosted models behind Ollama or vLLM). Texts go in a
//! batch and come back in the same order; a provider error, a timeout or
//! an answer of the wrong shape is an error the caller may retry.
//!
//! The provider's URL and key come from the operator, not from users, so
//! requests go to it directly (no private-network guard); the key is sent
//! as the provider expects and never logged.

use std::time::Duration;

use serde_json::{Value, json};

/// Which API the provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderKind {
    LibreTranslate,
    OpenAi,
}

/// A configured provider.
#[derive(Clone)]
pub struct Provider {
    pub kind: ProviderKind,
    /// Base URL: `http://host:5000` (LibreTranslate) or `http://host/v1`
    /// (OpenAI-compatible).
    pub url: String,
    pub api_key: Option<String>,
    /// The model (OpenAI-compatible providers).
    pub model: Option<String>,
    pub timeout: Duration,
    client: reqwest::Client,
}

impl std::fmt::Debug for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Provider")
            .field("kind", &self.kind)
            .field("url", &self.url)
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

/// What the provider is asked.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    pub texts: &'a [String],
    pub source: &'a str,
    pub target: &'a str,
    /// The translation's instructions, as text.
    pub instructions: Option<&'a str>,
    /// Terms and how they are said in the target language.
    pub glossary: &'a [(String, String)],
}

#[derive(Debug, thiserror::Error)]
pub enum TranslateError {
    #[error("the translation provider did not answer within {0:?}")]
    Timeout(Duration),
    #[error("the translation provider answered HTTP {0}: {1}")]
    Status(u16, String),
    #[error("the translation provider could not be reached: {0}")]
    Connect(String),
    #[error("the translation provider's answer is not what was asked: {0}")]
    Answer(String),
}

impl Provider {
    /// A provider and the HTTP client its requests share (built once:
    /// building one loads the TLS roots, which costs milliseconds).
    pub fn new(
        kind: ProviderKind,
        url: String,
        api_key: Option<String>,
        model: Option<String>,
        timeout: Duration,
    ) -> Result<Provider, TranslateError> {
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .no_proxy()
            .build()
            .map_err(|e| TranslateError::Connect(e.to_string()))?;
        Ok(Provider {
            kind,
            url,
            api_key,
            model,
            timeout,
            client,
        })
    }

    /// Translates `request.texts`, in order.
    pub async fn translate(&self, request: &Request<'_>) -> Result<Vec<String>, TranslateError> {
        if request.texts.is_empty() {
            return Ok(Vec::new());
        }
        let (url, body) = match self.kind {
            ProviderKind::LibreTranslate => {
                let mut body = json!({
                    "q": request.texts,
                    "source": request.source,
                    "target": request.target,
                    "format": "text",
                });
                if let Some(key) = &self.api_key {
                    body["api_key"] = Value::String(key.clone());
                }
                (format!("{}/translate", self.url.trim_end_matches('/')), body)
            }
            ProviderKind::OpenAi => {
                let mut system = format!(
                    "You translate documentation from {} to {}. The user sends a JSON array of texts; answer \
                     with only a JSON array of their translations, in the same order and of the same length. \
                     Keep placeholders like ⟦0⟧ exactly as they are.",
                    request.source, request.target
                );
                if !request.glossary.is_empty() {
                    system.push_str(" Use these translations of terms:");
                    for (term, translated) in request.glossary {
                        system.push_str(&format!(" \"{term}\" → \"{translated}\";"));
                    }
                }
                if let Some(instructions) = request.instructions.filter(|i| !i.trim().is_empty()) {
                    system.push_str(" Follow these instructions: ");
                    system.push_str(instructions);
                }
                let body = json!({
                    "model": self.model.clone().unwrap_or_else(|| "default".into()),
                    "temperature": 0,
                    "messages": [
                        { "role": "system", "content": system },
                        { "role": "user", "content": serde_json::to_string(request.texts).unwrap_or_default() }
                    ]
                });
                (format!("{}/chat/completions", self.url.trim_end_matches('/')), body)
            }
        };
        let mut call = self.client.post(url).json(&body);
        if let (ProviderKind::OpenAi, Some(key)) = (self.kind, &self.api_key) {
            call = call.bearer_auth(key);
        }
        let response = call.send().await.map_err(|e| {
            if e.is_timeout() {
                TranslateError::Timeout(self.timeout)
            } else {
                TranslateError::Connect(e.without_url().to_string())
            }
        })?;
        let status = response.status().as_u16();
        let text = response.text().await.map_err(|e| {
            if e.is_timeout() {
                TranslateError::Timeout(self.timeout)
            } else {
                TranslateError::Connect(e.without_url().to_string())
            }
        })?;
        if !(200..300).contains(&status) {
            return Err(TranslateError::Status(status, text.chars().take(300).collect()));
        }
        let answer: Value = serde_json::from_str(&text).map_err(|e| TranslateError::Answer(e.to_string()))?;
        let translated: Vec<String> = match self.kind {
            ProviderKind::LibreTranslate => match &answer["translatedText"] {
                Value::Array(items) => items
                    .iter()
                    .map(|v| v.as_str().unwrap_or_default().to_owned())
                    .collect(),
                Value::String(one) => vec![one.clone()],
                _ => return Err(TranslateError::Answer("no translatedText".into())),
            },
            ProviderKind::OpenAi => {
                let content = answer["choices"][0]["message"]["content"]
                    .as_str()
                    .ok_or_else(|| TranslateError::Answer("no choices[0].message.content".into()))?;
                // Models sometimes wrap JSON in a fenced block.
                let content = content
                    .trim()
                    .trim_start_matches("```json")
                    .trim_start_matches("```")
                    .trim_end_matches("```")
                    .trim();
                serde_json::from_str(content)
                    .map_err(|e| TranslateError::Answer(format!("not a JSON array of texts: {e}")))?
            }
        };
        if translated.len() != request.texts.len() {
            return Err(TranslateError::Answer(format!(
                "{} texts sent, {} came back",
                request.texts.len(),
                translated.len()
            )));
        }
        Ok(translated)
    }
}
