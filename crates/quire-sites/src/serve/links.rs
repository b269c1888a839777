//! Where a page's links, files, includes, OpenAPI specs, conditions and
//! variables lead on the site (`SpaceLinks`, the renderer's `Links`), and
//! the page's markdown as the visitor may read it.

use super::*;

pub(super) struct SpaceLinks<'a> {
    pub(super) snapshot: &'a Snapshot,
    pub(super) space_base: &'a str,
    pub(super) withheld: &'a Withheld,
    /// The page being rendered (relative links start from it).
    pub(super) page: Option<&'a str>,
    /// The documents of the reusable content it includes, by include path.
    pub(super) includes: HashMap<String, Document>,
    /// The OpenAPI operations it shows.
    pub(super) operations: HashMap<OpenApiOperation, quire_openapi::Operation>,
    /// The OpenAPI schemas it shows.
    pub(super) schemas: HashMap<OpenApiSchemas, Vec<(String, quire_openapi::Schema)>>,
    /// The visit, for conditional blocks (none
    /// are shown without it).
    pub(super) visit: Option<&'a Visit>,
    /// What expressions read: `{"space": {"vars": …}, "page": {"vars": …}}`.
    pub(super) variables: serde_json::Value,
}

impl<'a> SpaceLinks<'a> {
    pub(super) fn new(snapshot: &'a Snapshot, space_base: &'a str, withheld: &'a Withheld) -> SpaceLinks<'a> {
        SpaceLinks {
            snapshot,
            space_base,
            withheld,
            page: None,
            includes: HashMap::new(),
            operations: HashMap::new(),
            schemas: HashMap::new(),
            visit: None,
            variables: serde_json::Value::Null,
        }
    }

    pub(super) fn page_url(&self, id: &str) -> String {
        format!("{}/{}", self.space_base, self.snapshot.path_of(id))
    }
}

impl Links for SpaceLinks<'_> {
    fn page(&self, page_id: &str, anchor: Option<&str>) -> Option<String> {
        self.snapshot.tree.pages.get(page_id)?;
        if self.withheld.page(self.snapshot, page_id) {
            return None;
        }
        let mut url = self.page_url(page_id);
        if let Some(a) = anchor {
            url.push('#');
            url.push_str(a);
        }
        Some(url)
    }

    fn page_title(&self, page_id: &str) -> Option<String> {
        if self.withheld.page(self.snapshot, page_id) {
            return None;
        }
        self.snapshot.tree.pages.get(page_id).map(|p| p.meta.title.clone())
    }

    fn file(&self, file_id: &str) -> Option<FileLink> {
        self.snapshot.file(file_id).map(|f| FileLink {
            url: format!("{}/~files/{}", self.space_base, f.id),
            name: f.name.clone(),
            width: f.width,
            height: f.height,
        })
    }

    fn relative(&self, path: &str) -> Option<LinkTarget> {
        let anchor = path
            .split_once('#')
            .map(|(_, a)| a.to_owned())
            .filter(|a| !a.is_empty());
        match quire_engine::links::resolve(self.snapshot, self.page?, path, "")? {
            Target::Page(page) => Some(match anchor {
                Some(anchor) => LinkTarget::Anchor {
                    page: Some(page),
                    anchor,
                },
                None => LinkTarget::Page { page },
            }),
            Target::File(file) => Some(LinkTarget::File { file }),
            _ => None,
        }
    }

    fn include(&self, path: &str) -> Option<&Document> {
        self.includes.get(path)
    }

    fn openapi(&self, operation: &OpenApiOperation) -> Option<&quire_openapi::Operation> {
        self.operations.get(operation)
    }

    fn openapi_schemas(&self, pointer: &OpenApiSchemas) -> Option<&[(String, quire_openapi::Schema)]> {
        self.schemas.get(pointer).map(Vec::as_slice)
    }

    fn expression(&self, expression: &str) -> Option<String> {
        let parsed = quire_core::expression::parse(expression).ok()?;
        match quire_core::expression::value_of(&parsed, &self.variables) {
            serde_json::Value::Null => None,
            serde_json::Value::String(text) => Some(text),
            other => Some(other.to_string()),
        }
    }

    fn shows(&self, condition: &str) -> bool {
        self.visit.is_some_and(|visit| visit.shows(condition))
    }
}

/// A public spec: its reference as HTML, or (`/raw`) its document as it
/// was given; 404 for anything else.
pub(super) async fn public_spec(
    org: &str,
    slug: &str,
    rest: &[String],
    state: &SiteState,
) -> quire_app::AppResult<Response> {
    let (spec, version) = match quire_specs::published(&state.app, org, slug).await {
        Ok(found) => found,
        Err(err) if err.is_not_found() => return Ok(not_found(None)),
        Err(err) => return Err(err),
    };
    match rest {
        [] => {
            let Ok(parsed) = quire_openapi::parse(&version.content) else {
                return Ok(not_found(None));
            };
            let body = quire_site_render::openapi::reference(&parsed);
            Ok(html(StatusCode::OK, layout::bare(&parsed.title, &body), true))
        }
        [raw] if raw == "raw" => {
            let content_type = if version.format == "json" {
                "application/json; charset=utf-8"
            } else {
                "application/yaml; charset=utf-8"
            };
            let mut res = text(StatusCode::OK, content_type, version.content);
            res.headers_mut()
                .insert("access-control-allow-origin", HeaderValue::from_static("*"));
            tracing::debug!(spec = %spec.id, "public OpenAPI document served");
            Ok(res)
        }
        _ => Ok(not_found(None)),
    }
}

/// The parsed latest version of an organization's spec (cached by version).
pub(super) async fn spec_for_page(
    state: &SiteState,
    org_id: &str,
    snapshot: &Snapshot,
    page_id: &str,
    spec_ref: &str,
) -> quire_app::AppResult<Option<Arc<quire_openapi::Spec>>> {
    // GitBook's `{% openapi src="../.gitbook/assets/api.yaml" %}` names a
    // file of the repository, relative to the page.
    if !spec_ref.contains("://")
        && spec_ref.contains(['/', '.'])
        && let Some(Target::File(id)) = quire_engine::links::resolve(snapshot, page_id, spec_ref, "")
        && let Some(file) = snapshot.file(&id)
    {
        let key = format!("blob:{}", file.blob);
        if let Some(found) = cached_spec(state, &key) {
            return Ok(Some(found));
        }
        let bytes = published::file_bytes(&state.app, file).await?;
        let Ok(spec) = quire_openapi::parse(&String::from_utf8_lossy(&bytes)) else {
            return Ok(None);
        };
        return Ok(Some(keep_spec(state, key, spec)));
    }
    let Some(version) = quire_specs::latest_for_pages(&state.app, org_id, spec_ref).await? else {
        return Ok(None);
    };
    if let Some(found) = cached_spec(state, &version.id) {
        return Ok(Some(found));
    }
    let Ok(spec) = quire_openapi::parse(&version.content) else {
        return Ok(None);
    };
    Ok(Some(keep_spec(state, version.id, spec)))
}

pub(super) fn cached_spec(state: &SiteState, key: &str) -> Option<Arc<quire_openapi::Spec>> {
    state.specs.get(key)
}

/// Parsed specs a node keeps at most.
pub(super) const SPEC_CACHE: u64 = 32;

/// Keeps a parsed spec for later pages.
pub(super) fn keep_spec(state: &SiteState, key: String, spec: quire_openapi::Spec) -> Arc<quire_openapi::Spec> {
    let spec = Arc::new(spec);
    state.specs.insert(key, spec.clone());
    spec
}

/// What a page's expressions read: the space's variables (GitBook's
/// `.gitbook/vars.yaml`, synced as a file) and the page's (front matter
/// `vars`).
pub(super) async fn variables(
    state: &SiteState,
    snapshot: &Snapshot,
    front_matter: Option<&str>,
) -> quire_app::AppResult<serde_json::Value> {
    let page = front_matter
        .and_then(|f| quire_content::markdown::front_matter_mapping(f, "vars"))
        .unwrap_or_else(|| serde_json::json!({}));
    let file = snapshot
        .files
        .iter()
        .map(|(_, file)| file)
        .filter(|f| {
            f.git
                .as_ref()
                .is_some_and(|g| g.path == ".gitbook/vars.yaml" || g.path.ends_with("/.gitbook/vars.yaml"))
        })
        .min_by_key(|f| f.git.as_ref().map_or(0, |g| g.path.len()));
    let space = match file {
        Some(file) if file.size <= 64 * 1024 => {
            let bytes = published::file_bytes(&state.app, file).await?;
            quire_content::markdown::variables(&String::from_utf8_lossy(&bytes))
        }
        _ => None,
    }
    .unwrap_or_else(|| serde_json::json!({}));
    Ok(serde_json::json!({ "space": { "vars": space }, "page": { "vars": page } }))
}
