//! Checked access to the JSON objects of a document: where a value is (its
//! [`Path`], written only when there is an error), which fields an object
//! may have, and typed reads that name the path and the problem.

use std::fmt;

use serde_json::{Map, Value};

use super::super::DocumentError;

pub(super) type Result<T> = std::result::Result<T, DocumentError>;

/// Where a value sits in the document: `nodes[2].data.title`.
#[derive(Clone, Copy)]
pub(super) enum Path<'p> {
    Root,
    Field(&'p Path<'p>, &'p str),
    Index(&'p Path<'p>, usize),
}

impl Path<'_> {
    pub fn field<'a>(&'a self, name: &'a str) -> Path<'a> {
        Path::Field(self, name)
    }

    pub fn index(&self, i: usize) -> Path<'_> {
        Path::Index(self, i)
    }

    /// Whether the path goes more than `limit` fields and indexes deep.
    pub fn deeper_than(&self, limit: usize) -> bool {
        let mut path = self;
        for _ in 0..=limit {
            match path {
                Path::Root => return false,
                Path::Field(parent, _) | Path::Index(parent, _) => path = parent,
            }
        }
        true
    }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Root => Ok(()),
            Path::Field(Path::Root, name) => f.write_str(name),
            Path::Field(parent, name) => write!(f, "{parent}.{name}"),
            Path::Index(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

/// The error for the value at `path`.
pub(super) fn invalid(path: &Path, problem: impl fmt::Display) -> DocumentError {
    match path {
        Path::Root => DocumentError(problem.to_string()),
        path => DocumentError(format!("{path}: {problem}")),
    }
}

/// A JSON object of the document and where it is.
#[derive(Clone, Copy)]
pub(super) struct Obj<'v, 'p> {
    pub map: &'v Map<String, Value>,
    pub path: &'p Path<'p>,
}

impl<'v, 'p> Obj<'v, 'p> {
    /// `value` as an object.
    pub fn of(value: &'v Value, path: &'p Path<'p>) -> Result<Obj<'v, 'p>> {
        match value {
            Value::Object(map) => Ok(Obj { map, path }),
            _ => Err(invalid(path, "must be an object")),
        }
    }

    /// Refuses a field not in `allowed`.
    pub fn only(&self, allowed: &[&str]) -> Result<()> {
        match self.map.keys().find(|key| !allowed.contains(&key.as_str())) {
            None => Ok(()),
            Some(key) => Err(invalid(
                self.path,
                format!("field `{key}` is not allowed here (allowed: {})", allowed.join(", ")),
            )),
        }
    }

    /// The values of the fields `names` (in that order), refusing any other
    /// field: one pass over the object.
    pub fn take<const N: usize>(&self, names: [&str; N]) -> Result<[Option<&'v Value>; N]> {
        let mut values = [None; N];
        for (key, value) in self.map {
            match names.iter().position(|name| *name == key.as_str()) {
                Some(i) => values[i] = Some(value),
                None => {
                    return Err(invalid(
                        self.path,
                        format!("field `{key}` is not allowed here (allowed: {})", names.join(", ")),
                    ));
                }
            }
        }
        Ok(values)
    }

    pub fn get(&self, key: &str) -> Option<&'v Value> {
        self.map.get(key)
    }

    /// The object in `key`, if there is one; `path` is `self.path.field(key)`.
    pub fn object<'q>(&self, key: &str, path: &'q Path<'q>) -> Result<Option<Obj<'v, 'q>>> {
        self.get(key).map(|value| Obj::of(value, path)).transpose()
    }

    /// The object in `key`, which must be there.
    pub fn required_object<'q>(&self, key: &str, path: &'q Path<'q>) -> Result<Obj<'v, 'q>> {
        match self.get(key) {
            Some(value) => Obj::of(value, path),
            None => Err(invalid(self.path, format!("missing `{key}`"))),
        }
    }

    pub fn string(&self, key: &str) -> Result<Option<&'v str>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(invalid(&self.path.field(key), "must be a string")),
        }
    }

    pub fn required_string(&self, key: &str) -> Result<&'v str> {
        self.string(key)?
            .ok_or_else(|| invalid(self.path, format!("missing `{key}`")))
    }

    pub fn boolean(&self, key: &str) -> Result<Option<bool>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(invalid(&self.path.field(key), "must be a boolean")),
        }
    }

    pub fn number(&self, key: &str) -> Result<Option<f64>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Number(n)) => Ok(n.as_f64()),
            Some(_) => Err(invalid(&self.path.field(key), "must be a number")),
        }
    }

    /// A whole number (`1.0` counts) within `range`.
    pub fn integer(&self, key: &str, range: std::ops::RangeInclusive<f64>) -> Result<Option<f64>> {
        match self.number(key)? {
            Some(n) if n.fract() != 0.0 || !range.contains(&n) => Err(invalid(
                &self.path.field(key),
                format!("must be a whole number from {} to {}", range.start(), range.end()),
            )),
            n => Ok(n),
        }
    }

    /// A string among `options`.
    pub fn one_of(&self, key: &str, options: &[&str]) -> Result<Option<&'v str>> {
        match self.string(key)? {
            Some(s) if !options.contains(&s) => Err(invalid(
                &self.path.field(key),
                format!("must be one of {}", options.join(", ")),
            )),
            s => Ok(s),
        }
    }

    /// `key`, if present, must hold `value` (an `isVoid` or `object`).
    pub fn fixed(&self, key: &str, value: &Value) -> Result<()> {
        match self.get(key) {
            Some(found) if found != value => Err(invalid(&self.path.field(key), format!("must be {value}"))),
            _ => Ok(()),
        }
    }

    /// `key` must be present.
    pub fn require(&self, key: &str) -> Result<()> {
        if self.map.contains_key(key) {
            Ok(())
        } else {
            Err(invalid(self.path, format!("missing `{key}`")))
        }
    }
}

/// The array at `path`.
pub(super) fn array<'v>(value: &'v Value, path: &Path, problem: &str) -> Result<&'v [Value]> {
    match value {
        Value::Array(items) => Ok(items),
        _ => Err(invalid(path, problem)),
    }
}

/// An icon name (the schema's `Icon`: a string of at most 50 characters).
pub(super) fn check_icon(obj: &Obj, key: &str) -> Result<()> {
    match obj.string(key)? {
        Some(icon) if icon.chars().count() > 50 => Err(invalid(
            &obj.path.field(key),
            "must be an icon name of at most 50 characters",
        )),
        _ => Ok(()),
    }
}

/// The schema's `TextAlignment` of paragraphs and headings.
pub(super) fn check_text_align(obj: &Obj) -> Result<()> {
    obj.one_of("align", &["start", "center", "end"]).map(drop)
}

/// The schema's `Length`: a number, or `{ "unit": …, "value": … }`.
pub(super) fn check_length(obj: &Obj, key: &str) -> Result<()> {
    let path = obj.path.field(key);
    match obj.get(key) {
        None | Some(Value::Number(_)) => Ok(()),
        Some(value @ Value::Object(_)) => {
            let length = Obj::of(value, &path)?;
            length.only(&["unit", "value"])?;
            length.required_string("unit")?;
            length
                .number("value")?
                .ok_or_else(|| invalid(&path, "missing `value`"))?;
            Ok(())
        }
        Some(_) => Err(invalid(&path, "must be a number or a `{ unit, value }` object")),
    }
}

/// A `meta` object holding only the string fields `allowed`, `required`
/// among them.
pub(super) fn check_meta(obj: &Obj, allowed: &[&str], required: Option<&str>) -> Result<()> {
    let path = obj.path.field("meta");
    let Some(meta) = obj.object("meta", &path)? else {
        return Ok(());
    };
    meta.only(allowed)?;
    for key in allowed {
        meta.string(key)?;
    }
    if let Some(key) = required {
        meta.required_string(key)?;
    }
    Ok(())
}
