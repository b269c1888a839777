//! A chat model behind an OpenAI-compatible chat-completions API (`POST
//! {url}/chat/completions`: OpenAI, or a self-hosted model behind Ollama or
//! vLLM), configured by the operator: what answers readers' questions
//! from a site's pages. Like translation providers, its URL and key are the
//! operator's, so requests go to it directly; the key is never logged.

use std::time::Duration;

use serde_json::{Value, json};

/// A configured chat model.
#[derive(Clone)]
pub struct ChatModel {
    /// Base URL, `http://host/v1`.
    pub url: String,
    pub api_key: Option<String>,
    pub model: String,
    pub timeout: Duration,
    client: reqwest::Client,
}

impl std::fmt::Debug for ChatModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatModel")
            .field("url", &self.url)
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ChatError {
    #[error("the model did not answer within {0:?}")]
    Timeout(Duration),
    #[error("the model's API answered HTTP {0}: {1}")]
    Status(u16, String),
    #[error("the model's API could not be reached: {0}")]
    Connect(String),
    #[error("the model's answer has no text: {0}")]
    Answer(String),
}

/// What came back, with the API's own token counts when it gives them.
#[derive(Debug, Clone)]
pub struct Completion {
    pub text: String,
    pub prompt_tokens: Option<u64>,
    pub completion_tokens: Option<u64>,
}

impl ChatModel {
    pub fn new(url: String, api_key: Option<String>, model: String, timeout: Duration) -> Result<ChatModel, ChatError> {
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .no_proxy()
            .build()
            .map_err(|e| ChatError::Connect(e.to_string()))?;
        Ok(ChatModel {
            url,
            api_key,
            model,
            timeout,
            client,
        })
    }

    /// One completion of `system` then `user`, at temperature 0.
    pub async fn complete(&self, system: &str, user: &str) -> Result<Completion, ChatError> {
        let body = json!({
            "model": self.model,
            "temperature": 0,
            "messages": [
                { "role": "system", "content": system },
                { "role": "user", "content": user }
            ]
        });
        let mut call = self
            .client
            .post(format!("{}/chat/completions", self.url.trim_end_matches('/')))
            .json(&body);
        if let Some(key) = &self.api_key {
            call = call.bearer_auth(key);
        }
        let failed = |e: reqwest::Error| {
            if e.is_timeout() {
                ChatError::Timeout(self.timeout)
            } else {
                ChatError::Connect(e.without_url().to_string())
            }
        };
        let response = call.send().await.map_err(failed)?;
        let status = response.status().as_u16();
        let text = response.text().await.map_err(failed)?;
        if !(200..300).contains(&status) {
            return Err(ChatError::Status(status, text.chars().take(300).collect()));
        }
        let answer: Value = serde_json::from_str(&text).map_err(|e| ChatError::Answer(e.to_string()))?;
        let content = answer["choices"][0]["message"]["content"]
            .as_str()
            .ok_or_else(|| ChatError::Answer("no choices[0].message.content".into()))?;
        Ok(Completion {
            text: content.trim().to_owned(),
            prompt_tokens: answer["usage"]["prompt_tokens"].as_u64(),
            completion_tokens: answer["usage"]["completion_tokens"].as_u64(),
        })
    }
}
