//! Built-in space templates: ready-made page trees a space starts from.

use crate::changes::{Change, DocumentInput, PageFields};

/// The templates this server offers, by id.
pub const TEMPLATES: [&str; 2] = ["api-reference", "product-guide"];

fn page(reference: &str, into: Option<&str>, markdown: &str) -> Change {
    Change::InsertPage {
        fields: PageFields::default(),
        into: into.map(str::to_owned),
        at: None,
        reference: Some(reference.to_owned()),
        document: DocumentInput::Markdown {
            markdown: markdown.to_owned(),
        },
    }
}

/// The changes that build template `id`, or `None` for an unknown id.
pub fn template(id: &str) -> Option<Vec<Change>> {
    match id {
        "api-reference" => Some(vec![
            page(
                "overview",
                None,
                "# API overview\n\nWhat the API does, who it is for and the base URL every request goes to.\n\n\
                 {% hint style=\"info\" %}\nAll requests and responses are JSON.\n{% endhint %}\n\n\
                 Continue with [authentication](./authentication.md).\n",
            ),
            page(
                "authentication",
                None,
                "# Authentication\n\nSend your API token in the `Authorization` header:\n\n\
                 ```http\nAuthorization: Bearer <token>\n```\n\nRequests without a valid token are answered with `401`.\n",
            ),
            page(
                "reference",
                None,
                "# Reference\n\nEvery endpoint, grouped by resource.\n",
            ),
            page(
                "errors",
                Some("reference"),
                "# Errors\n\nFailures answer with a JSON body:\n\n\
                 ```json\n{ \"error\": { \"code\": 404, \"message\": \"not found\" } }\n```\n\n\
                 | Status | Meaning |\n| --- | --- |\n| 400 | The request is invalid |\n| 401 | No or bad token |\n\
                 | 403 | Not allowed |\n| 404 | Unknown resource |\n",
            ),
            page(
                "pagination",
                Some("reference"),
                "# Pagination\n\nLists answer `{items, count, next: {page}}`. Pass `next.page` as `page` to read on.\n",
            ),
        ]),
        "product-guide" => Some(vec![
            page(
                "welcome",
                None,
                "# Welcome\n\nWhat the product is and what this guide covers.\n\n\
                 * [Getting started](./getting-started.md)\n* [Features](./features.md)\n* [FAQ](./faq.md)\n",
            ),
            page(
                "getting-started",
                None,
                "# Getting started\n\n1. Create an account.\n2. Set up your first project.\n3. Invite your team.\n",
            ),
            page("features", None, "# Features\n\nThe main features, one page each.\n"),
            page(
                "first-feature",
                Some("features"),
                "# First feature\n\nWhat it does and how to use it.\n",
            ),
            page(
                "faq",
                None,
                "# FAQ\n\n## How do I get help?\n\nAsk your administrator or open a support request.\n",
            ),
        ]),
        _ => None,
    }
}
