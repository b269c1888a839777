//! `.gitbook.yaml`: where the documentation is in the repository (`root`),
//! which files are the first page and the table of contents
//! (`structure.readme`, `structure.summary`), and `redirects`.

use serde::Deserialize;

/// A repository's GitBook configuration, paths normalized: `root` is empty
/// or ends with `/`, the structure files are relative to `root`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    pub root: String,
    pub readme: String,
    pub summary: String,
    /// Old path → new path, as written.
    pub redirects: Vec<(String, String)>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            root: String::new(),
            readme: "README.md".into(),
            summary: "SUMMARY.md".into(),
            redirects: Vec::new(),
        }
    }
}

#[derive(Deserialize, Default)]
struct RawConfig {
    root: Option<String>,
    structure: Option<RawStructure>,
    redirects: Option<serde_norway::Mapping>,
}

#[derive(Deserialize, Default)]
struct RawStructure {
    readme: Option<String>,
    summary: Option<String>,
}

/// A path inside the repository: no leading `./` or `/`, no `..`
/// escaping it; `None` for one that leaves the repository.
pub fn clean_path(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

impl Config {
    /// Reads `.gitbook.yaml`; an empty file is the default configuration.
    pub fn parse(text: &str) -> Result<Config, String> {
        let raw: RawConfig = if text.trim().is_empty() {
            RawConfig::default()
        } else {
            quire_core::yaml::check_nesting(text, quire_core::yaml::MAX_FLOW_DEPTH)
                .map_err(|e| format!(".gitbook.yaml: {e}"))?;
            serde_norway::from_str(text).map_err(|e| format!(".gitbook.yaml: {e}"))?
        };
        let mut config = Config::default();
        if let Some(root) = raw.root {
            let root =
                clean_path(&root).ok_or_else(|| format!(".gitbook.yaml: root {root:?} leaves the repository"))?;
            config.root = if root.is_empty() { root } else { format!("{root}/") };
        }
        if let Some(structure) = raw.structure {
            if let Some(readme) = structure
                .readme
                .as_deref()
                .and_then(clean_path)
                .filter(|p| !p.is_empty())
            {
                config.readme = readme;
            }
            if let Some(summary) = structure
                .summary
                .as_deref()
                .and_then(clean_path)
                .filter(|p| !p.is_empty())
            {
                config.summary = summary;
            }
        }
        for (from, to) in raw.redirects.unwrap_or_default() {
            if let (Some(from), Some(to)) = (from.as_str(), to.as_str()) {
                config.redirects.push((from.to_owned(), to.to_owned()));
            }
        }
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deeply_nested_yaml_is_refused_before_parsing() {
        let text = format!("redirects: {}", "{a: ".repeat(100_000));
        let err = Config::parse(&text).map(|_| ()).unwrap_err();
        assert!(err.contains("nested deeper than"), "{err}");
    }

    #[test]
    fn configuration_is_read_and_normalized() {
        let config = Config::parse(
            "root: ./docs/\nstructure:\n  readme: intro.md\n  summary: toc/SUMMARY.md\nredirects:\n  old/page: new/page.md\n",
        )
        .unwrap();
        assert_eq!(config.root, "docs/");
        assert_eq!(config.readme, "intro.md");
        assert_eq!(config.summary, "toc/SUMMARY.md");
        assert_eq!(config.redirects, [("old/page".to_owned(), "new/page.md".to_owned())]);
        assert_eq!(Config::parse("").unwrap(), Config::default());
        assert!(Config::parse("root: [unclosed").is_err());
        assert!(Config::parse("root: ../../etc").is_err());
    }
}
