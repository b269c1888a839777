//! placeholder
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct ExportReport {}

pub(super) async fn run(_app: &crate::App, _job: &super::GitExport) -> anyhow::Result<ExportReport> {
    anyhow::bail!("export is being written")
}
