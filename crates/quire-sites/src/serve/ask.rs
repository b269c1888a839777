//! Answers with sources: a reader (or an agent, through the site's MCP
//! server) asks a question; the site's own search finds the pages the
//! visitor may see that bear on it, their markdown (as the visitor may read
//! it, conditional blocks removed) becomes the numbered sources of a prompt,
//! and the operator's chat model (`App::assistant`) answers citing them as
//! `[n]`. Nothing the visitor may not read is ever in the prompt: sources
//! come only through `found` and `markdown_at`, the visit's own answers.
//! Without a configured model, or on a site whose `ai.mode` is `none` (the
//! default), the feature is absent (the page says so, the MCP server does
//! not offer the tool).

use super::*;

/// Pages given to the model at most.
pub(super) const SOURCES: usize = 4;
/// Characters of a page's markdown given to the model at most.
const SOURCE_CHARS: usize = 6_000;
/// Longest question.
const MAX_QUESTION_CHARS: usize = 500;

/// How a question went.
pub(super) enum Asked {
    /// No model is configured.
    Unavailable,
    /// The question cannot be asked (empty, too long), or the model failed.
    Refused(String),
    Answered(Answer),
}

pub(super) struct Answer {
    pub(super) text: String,
    /// Title and URL of each source, numbered from 1 in this order.
    pub(super) sources: Vec<(String, String)>,
}

/// Words too common to search for.
const STOPWORDS: &[&str] = &[
    "the", "and", "for", "how", "what", "why", "who", "when", "where", "which", "does", "can", "you", "your", "are",
    "with", "that", "this", "from", "into", "about", "there", "have", "has", "was", "were", "will", "would", "should",
    "could", "not", "any", "all", "its", "our", "their", "them", "they", "use", "using", "get", "set", "make", "need",
];

/// The words of a question worth searching for, longest first.
fn keywords(question: &str) -> Vec<String> {
    let mut words: Vec<String> = question
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.chars().count() >= 3 && !STOPWORDS.contains(&w.as_str()))
        .collect();
    words.dedup();
    words.sort_by_key(|w| std::cmp::Reverse(w.chars().count()));
    words.truncate(6);
    words
}

/// The pages bearing on `question`: a search for its words together, or,
/// when nothing has them all, for each of them.
async fn sources(state: &SiteState, visit: &Visit, question: &str) -> quire_app::AppResult<Vec<Found>> {
    let words = keywords(question);
    if words.is_empty() {
        return Ok(Vec::new());
    }
    if let Ok(found) = found(state, visit, &words.join(" "), SOURCES).await?
        && !found.is_empty()
    {
        return Ok(found);
    }
    let mut all: Vec<Found> = Vec::new();
    for word in words.iter().take(4) {
        if let Ok(hits) = found(state, visit, word, SOURCES).await? {
            for hit in hits {
                if !all.iter().any(|h| h.url == hit.url) {
                    all.push(hit);
                }
            }
        }
    }
    all.truncate(SOURCES);
    Ok(all)
}

/// Whether the site offers answers: the operator configured a chat model
/// and the site's `ai.mode` is `search` or `assistant` (`none`, the
/// default, offers none).
pub(super) fn offered(state: &SiteState, visit: &Visit) -> bool {
    let settings = crate::customization::of(&visit.site.site).settings;
    matches!(settings["ai"]["mode"].as_str(), Some("search" | "assistant")) && state.app.assistant().is_some()
}

pub(super) async fn ask(state: &SiteState, visit: &Visit, question: &str) -> quire_app::AppResult<Asked> {
    let Some(model) = state.app.assistant().filter(|_| offered(state, visit)) else {
        return Ok(Asked::Unavailable);
    };
    let question = question.trim();
    if question.is_empty() {
        return Ok(Asked::Refused("ask a question".into()));
    }
    if question.chars().count() > MAX_QUESTION_CHARS {
        return Ok(Asked::Refused(format!(
            "a question is at most {MAX_QUESTION_CHARS} characters"
        )));
    }
    let mut numbered = Vec::new();
    let mut prompt = String::from("Sources:\n\n");
    for hit in sources(state, visit, question).await? {
        let Some(markdown) = markdown_at(state, visit, &hit.url).await? else {
            continue;
        };
        let markdown: String = markdown.chars().take(SOURCE_CHARS).collect();
        numbered.push((hit.title.clone(), hit.url.clone()));
        prompt.push_str(&format!(
            "[{}] {} ({})\n{}\n\n",
            numbered.len(),
            hit.title,
            hit.url,
            markdown.trim()
        ));
    }
    if numbered.is_empty() {
        return Ok(Asked::Answered(Answer {
            text: "No page of this site answers this question.".into(),
            sources: Vec::new(),
        }));
    }
    prompt.push_str(&format!("Question: {question}"));
    let system = format!(
        "You answer readers' questions about the documentation of {}. Use only the numbered sources the user \
         gives. Cite every statement with the number of its source in brackets, like [1]. If the sources do not \
         answer the question, say so. Answer briefly, in the language of the question, as plain text.",
        visit.site.site.title
    );
    match model.complete(&system, &prompt).await {
        Ok(completion) => {
            // The context an answer costs, for the operator's bill.
            tracing::info!(
                sources = numbered.len(),
                prompt_chars = system.len() + prompt.len(),
                prompt_tokens = completion.prompt_tokens,
                completion_tokens = completion.completion_tokens,
                "question answered"
            );
            Ok(Asked::Answered(Answer {
                text: completion.text,
                sources: numbered,
            }))
        }
        Err(err) => {
            tracing::warn!(error = %err, "the assistant did not answer");
            Ok(Asked::Refused(
                "the assistant could not answer just now; try again".into(),
            ))
        }
    }
}

/// The answer as markdown with its sources (the MCP tool's text).
pub(super) fn as_markdown(answer: &Answer) -> String {
    let mut text = answer.text.clone();
    if !answer.sources.is_empty() {
        text.push_str("\n\n# Sources\n");
        for (n, (title, url)) in answer.sources.iter().enumerate() {
            text.push_str(&format!("\n[{}] [{title}]({url})", n + 1));
        }
    }
    text
}

/// `~gitbook/ask?q=`: the answer page (never kept: it is the model's, per
/// question and visitor).
pub(super) async fn page(state: &SiteState, visit: &Visit, question: &str) -> quire_app::AppResult<Response> {
    let asked = ask(state, visit, question).await?;
    let Some((section, space)) = visit.site.spaces().into_iter().next() else {
        return Ok(not_found(Some(visit)));
    };
    let snapshot = published::snapshot(&state.app, &space.space).await?;
    let order = reading_order(state, &snapshot);
    let withheld = visit.withheld(&order);
    let space_base = space_url(&visit.base, section, space);
    let shell = Shell {
        page_title: "Answer".into(),
        ..tool_shell(
            &order,
            &withheld,
            visit,
            section,
            space,
            &snapshot,
            &space_base,
            question,
        )
    };
    let mut body = String::from("<h1>");
    quire_site_render::html::push_escaped(&mut body, question);
    body.push_str("</h1>");
    let status = match asked {
        Asked::Unavailable => {
            body.push_str("<p>Answers are not available on this site.</p>");
            StatusCode::NOT_FOUND
        }
        Asked::Refused(why) => {
            body.push_str("<p>");
            quire_site_render::html::push_escaped(&mut body, &why);
            body.push_str("</p>");
            StatusCode::BAD_REQUEST
        }
        Asked::Answered(answer) => {
            body.push_str("<div class=\"answer\">");
            for paragraph in answer.text.split("\n\n").filter(|p| !p.trim().is_empty()) {
                body.push_str("<p>");
                push_cited(&mut body, paragraph.trim(), &answer.sources);
                body.push_str("</p>");
            }
            body.push_str("</div>");
            if !answer.sources.is_empty() {
                body.push_str("<h2>Sources</h2><ol class=\"sources\">");
                for (title, url) in &answer.sources {
                    body.push_str(&format!("<li><a href=\"{}\">", quire_site_render::html::safe_url(url)));
                    quire_site_render::html::push_escaped(&mut body, title);
                    body.push_str("</a></li>");
                }
                body.push_str("</ol>");
            }
            body.push_str("<p><small>Written by a language model from the pages above; check them.</small></p>");
            StatusCode::OK
        }
    };
    Ok(html(status, layout::page(&shell, &body), false))
}

/// `text` escaped, each `[n]` naming a source made a link to it.
fn push_cited(out: &mut String, text: &str, sources: &[(String, String)]) {
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let (before, after) = rest.split_at(open);
        quire_site_render::html::push_escaped(out, before);
        let cited = after[1..]
            .find(']')
            .and_then(|close| Some((after[1..1 + close].parse::<usize>().ok()?, close)));
        match cited {
            Some((n, close)) if (1..=sources.len()).contains(&n) => {
                let (title, url) = &sources[n - 1];
                out.push_str(&format!(
                    "<a class=\"cite\" href=\"{}\" title=\"",
                    quire_site_render::html::safe_url(url)
                ));
                quire_site_render::html::push_escaped(out, title);
                out.push_str(&format!("\">[{n}]</a>"));
                rest = &after[close + 2..];
            }
            _ => {
                out.push('[');
                rest = &after[1..];
            }
        }
    }
    quire_site_render::html::push_escaped(out, rest);
}

#[cfg(test)]
mod tests {
    use super::{keywords, push_cited};

    #[test]
    fn questions_become_search_words() {
        assert_eq!(keywords("How do I configure the walrus?"), ["configure", "walrus"]);
        assert!(keywords("how? the!").is_empty());
    }

    #[test]
    fn citations_link_their_sources() {
        let sources = [("Setup".to_owned(), "/docs/setup".to_owned())];
        let mut out = String::new();
        push_cited(&mut out, "One file [1], not [2] or [x] <b>.", &sources);
        assert_eq!(
            out,
            "One file <a class=\"cite\" href=\"/docs/setup\" title=\"Setup\">[1]</a>, not [2] or [x] &lt;b&gt;."
        );
    }
}
