//! Reading a table block: its view (grid or cards), column definitions,
//! records and cell fragments, checked against the schema, as a table of
//! inline cells.
//!
//! A column's title and alignment come from its definition. A cell is the
//! fragment its value names (text cells), else the value itself: numbers,
//! booleans and lists as text, references and images as links to them.
//! Merged cells, column widths and card settings are checked and left out.

use std::collections::HashMap;

use serde_json::Value;

use super::super::fit::Place;
use super::super::model::{Block, Column, ColumnAlign, Inline, LinkTarget, Table, TableCell, normalize_inlines};
use super::fields::{Obj, Path, Result, array, invalid};
use super::inline::{read_image_ref, read_link_ref};
use super::{each_fragment, read_block};

pub(super) fn read_table(table: &Obj) -> Result<Block> {
    let path = table.path;
    table.only(&["object", "type", "key", "isVoid", "data", "fragments"])?;
    let data_path = path.field("data");
    let data = match table.get("data") {
        Some(data @ Value::Object(_)) => Obj::of(data, &data_path)?,
        _ => return Err(invalid(path, "table needs `data`")),
    };
    data.only(&["view", "records", "definition", "cellMerges", "fullWidth", "search"])?;
    data.boolean("fullWidth")?;
    data.boolean("search")?;

    let view_path = data_path.field("view");
    let view = match data.get("view") {
        Some(view) => Obj::of(view, &view_path)?,
        None => return Err(invalid(path, "table needs `data.view.columns`")),
    };
    let columns = read_view(&view, path)?;

    let definition_path = data_path.field("definition");
    let definitions = match data.get("definition") {
        Some(definition) => Obj::of(definition, &definition_path)?,
        None => return Err(invalid(path, "table needs `data.definition`")),
    };
    for (id, definition) in definitions.map {
        check_definition(definition, &definition_path.field(id))?;
    }

    let records_path = data_path.field("records");
    let records = match data.get("records") {
        Some(records @ Value::Object(_)) => Obj::of(records, &records_path)?,
        _ => return Err(invalid(path, "table needs `data.records`")),
    };
    // The records' paths live as long as the rows read from them.
    let record_paths: Vec<Path> = records.map.keys().map(|key| records_path.field(key)).collect();
    let mut rows: Vec<(&str, &str, Obj)> = Vec::with_capacity(records.map.len());
    for ((key, record), record_path) in records.map.iter().zip(&record_paths) {
        let record = Obj::of(record, record_path)?;
        record.only(&["orderIndex", "values"])?;
        let order = record.required_string("orderIndex")?;
        rows.push((order, key, record));
    }
    rows.sort_by_key(|(order, key, _)| (*order, *key));

    if let Some(merges) = data.get("cellMerges") {
        check_cell_merges(merges, &data_path.field("cellMerges"))?;
    }

    let fragments = read_fragments(table)?;
    let columns: Vec<(&str, Column)> = columns
        .into_iter()
        .map(|id| {
            let definition = definitions.get(id);
            let text = |key: &str| definition.and_then(|d| d.get(key)).and_then(Value::as_str);
            let align = match text("textAlignment") {
                Some("center") => ColumnAlign::Center,
                Some("right") => ColumnAlign::Right,
                _ => ColumnAlign::Left,
            };
            let title = text("title").unwrap_or_default().to_owned();
            (id, Column { title, align })
        })
        .collect();

    let mut table_rows = Vec::with_capacity(rows.len());
    for (_, _, record) in &rows {
        let values_path = record.path.field("values");
        let values = record.required_object("values", &values_path)?;
        let mut by_column = HashMap::with_capacity(values.map.len());
        for (column, value) in values.map {
            by_column.insert(column.as_str(), cell(value, &values_path.field(column), &fragments)?);
        }
        let cells = columns
            .iter()
            .map(|(id, _)| by_column.remove(id).unwrap_or_default())
            .collect();
        table_rows.push(cells);
    }
    table.fixed("isVoid", &Value::Bool(true))?;
    table.require("isVoid")?;
    Ok(Block::Table(Table {
        columns: columns.into_iter().map(|(_, column)| column).collect(),
        rows: table_rows,
    }))
}

/// The column ids a grid or cards view shows.
fn read_view<'v>(view: &Obj<'v, '_>, table: &Path) -> Result<Vec<&'v str>> {
    match view.string("type")? {
        Some("grid") => {
            view.only(&[
                "type",
                "columns",
                "columnWidths",
                "hideHeader",
                "stickyHeader",
                "stickyFirstColumn",
                "useNewSizing",
            ])?;
            view.boolean("hideHeader")?
                .ok_or_else(|| invalid(view.path, "missing `hideHeader`"))?;
            for key in ["stickyHeader", "stickyFirstColumn", "useNewSizing"] {
                view.boolean(key)?;
            }
            let widths_path = view.path.field("columnWidths");
            if let Some(widths) = view.object("columnWidths", &widths_path)? {
                for key in widths.map.keys() {
                    widths.number(key)?;
                }
            }
        }
        Some("cards") => {
            view.only(&[
                "type",
                "cardSize",
                "columns",
                "targetDefinition",
                "coverDefinition",
                "coverDefinitionDark",
                "hideColumnTitle",
                "wrap",
            ])?;
            view.one_of("cardSize", &["medium", "large"])?
                .ok_or_else(|| invalid(view.path, "missing `cardSize`"))?;
            for key in ["targetDefinition", "coverDefinition", "coverDefinitionDark"] {
                view.string(key)?;
            }
            view.boolean("hideColumnTitle")?;
            view.boolean("wrap")?;
        }
        _ => return Err(invalid(view.path, "`type` must be \"grid\" or \"cards\"")),
    }
    let columns = match view.get("columns") {
        Some(Value::Array(columns)) => columns,
        _ => return Err(invalid(table, "table needs `data.view.columns`")),
    };
    columns
        .iter()
        .map(|c| {
            c.as_str()
                .ok_or_else(|| invalid(table, "table columns must be strings"))
        })
        .collect()
}

/// A column definition of one of the schema's types.
fn check_definition(definition: &Value, path: &Path) -> Result<()> {
    let definition = Obj::of(definition, path)?;
    definition.required_string("id")?;
    definition.required_string("title")?;
    let base = ["id", "title", "type"];
    let allowed: &[&str] = match definition.required_string("type")? {
        "text" => {
            definition
                .one_of("textAlignment", &["center", "right", "left"])?
                .ok_or_else(|| invalid(path, "missing `textAlignment`"))?;
            definition.one_of("verticalAlignment", &["top", "middle", "bottom"])?;
            &["textAlignment", "verticalAlignment"]
        }
        "number" | "checkbox" | "files" | "content-ref" | "image" => &[],
        "rating" => {
            definition
                .number("max")?
                .ok_or_else(|| invalid(path, "missing `max`"))?;
            &["max"]
        }
        "select" => {
            definition
                .boolean("multiple")?
                .ok_or_else(|| invalid(path, "missing `multiple`"))?;
            let options_path = path.field("options");
            let options = match definition.get("options") {
                Some(options) => array(options, &options_path, "must be an array")?,
                None => return Err(invalid(path, "missing `options`")),
            };
            for (i, option) in options.iter().enumerate() {
                let option_path = options_path.index(i);
                let option = Obj::of(option, &option_path)?;
                option.only(&["value", "label", "color"])?;
                for key in ["value", "label", "color"] {
                    option.required_string(key)?;
                }
            }
            &["multiple", "options"]
        }
        "users" => {
            definition
                .boolean("multiple")?
                .ok_or_else(|| invalid(path, "missing `multiple`"))?;
            &["multiple"]
        }
        other => return Err(invalid(path, format!("unknown column type `{other}`"))),
    };
    let all: Vec<&str> = base.iter().chain(allowed).copied().collect();
    definition.only(&all)
}

fn check_cell_merges(merges: &Value, path: &Path) -> Result<()> {
    for (i, merge) in array(merges, path, "must be an array")?.iter().enumerate() {
        let merge_path = path.index(i);
        let merge = Obj::of(merge, &merge_path)?;
        merge.only(&["anchor", "rowSpan", "colSpan"])?;
        let anchor_path = merge_path.field("anchor");
        let anchor = merge.required_object("anchor", &anchor_path)?;
        anchor.only(&["record", "column"])?;
        anchor.required_string("record")?;
        anchor.required_string("column")?;
        for key in ["rowSpan", "colSpan"] {
            merge
                .integer(key, 1.0..=50.0)?
                .ok_or_else(|| invalid(&merge_path, format!("missing `{key}`")))?;
        }
    }
    Ok(())
}

/// The table's fragments by name, each read as a cell: paragraphs, joined
/// by a space.
fn read_fragments<'v>(table: &Obj<'v, '_>) -> Result<HashMap<&'v str, TableCell>> {
    let mut cells = HashMap::new();
    each_fragment(table, |fragment| {
        let mut cell = TableCell::new();
        for (j, node) in fragment.nodes.iter().enumerate() {
            let node_path = fragment.nodes_path.index(j);
            match read_block(node, &node_path, Place::Top)? {
                Block::Paragraph(content) => {
                    if j > 0 {
                        cell.push(Inline::plain(" "));
                    }
                    cell.extend(content);
                }
                _ => return Err(invalid(&node_path, "table cells hold paragraphs only")),
            }
        }
        if let Some(name) = fragment.name {
            cells.insert(name, normalize_inlines(cell));
        }
        Ok(())
    })?;
    Ok(cells)
}

/// A record value as a cell.
fn cell(value: &Value, path: &Path, fragments: &HashMap<&str, TableCell>) -> Result<TableCell> {
    let text = |s: String| {
        if s.is_empty() {
            Vec::new()
        } else {
            vec![Inline::plain(s)]
        }
    };
    Ok(match value {
        Value::Null => Vec::new(),
        Value::String(key) => match fragments.get(key.as_str()) {
            Some(cell) => cell.clone(),
            None => text(key.clone()),
        },
        Value::Number(n) => text(n.to_string()),
        Value::Bool(b) => text(b.to_string()),
        Value::Array(items) => {
            let items: Vec<&str> = items
                .iter()
                .map(|item| {
                    item.as_str()
                        .ok_or_else(|| invalid(path, "list values must be strings"))
                })
                .collect::<Result<_>>()?;
            text(items.join(", "))
        }
        Value::Object(_) => {
            let target = if value.get("kind").is_some() {
                read_link_ref(value, path)?
            } else {
                let image = Obj::of(value, path)?;
                image.only(&["ref", "objectFit", "alt"])?;
                image.one_of("objectFit", &["contain", "fill", "cover"])?;
                image.string("alt")?;
                match image.get("ref") {
                    Some(reference) => LinkTarget::from(read_image_ref(reference, &path.field("ref"))?),
                    None => return Err(invalid(path, "missing `ref`")),
                }
            };
            let url = target.to_url();
            vec![Inline::Link {
                target,
                content: text(url),
            }]
        }
    })
}
