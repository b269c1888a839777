//! The interface strings of published pages (search box, "On this page",
//! previous/next, the menu, copy buttons, the 404 page…) in the site's
//! language: the official customization's `internationalization.locale`
//! (`en`, `fr`, `es`, `zh`, `ja`, `de`, `nl`, `no`, `pt-br`, `ru`). One
//! table per language; a locale not known here reads in English. Pure.

/// A language of the interface.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Language {
    #[default]
    En,
    Fr,
    Es,
    Zh,
    Ja,
    De,
    Nl,
    No,
    PtBr,
    Ru,
}

/// The strings of the interface in one language.
#[derive(Debug)]
pub struct Strings {
    pub search: &'static str,
    pub no_results: &'static str,
    /// "No results for {}.": the query goes where `{}` is.
    pub no_results_for: &'static str,
    pub on_this_page: &'static str,
    pub previous: &'static str,
    pub next: &'static str,
    /// The label of the previous/next navigation.
    pub pager: &'static str,
    pub page_not_found: &'static str,
    pub page_not_found_text: &'static str,
    pub menu: &'static str,
    /// The label of the page tree.
    pub pages: &'static str,
    pub sections: &'static str,
    pub breadcrumbs: &'static str,
    pub copy: &'static str,
    pub copied: &'static str,
    pub switch_theme: &'static str,
    pub recent_changes: &'static str,
    /// The link that takes keyboard readers past the header and tree.
    pub skip_to_content: &'static str,
    pub privacy_policy: &'static str,
    /// The page actions menu and its items ("Open in {}" names the tool).
    pub page_actions: &'static str,
    pub copy_page: &'static str,
    pub view_markdown: &'static str,
    pub open_in: &'static str,
    pub copy_mcp: &'static str,
    /// "Edit on {}" names the forge.
    pub edit_on: &'static str,
    pub export_pdf: &'static str,
    pub ask_about_page: &'static str,
    /// The search scope of every section and variant.
    pub everywhere: &'static str,
    /// "Last updated" before a page's date.
    pub last_updated: &'static str,
    /// The toggle of a page's subpages in the tree ("{}" is the page).
    pub subpages_of: &'static str,
}

const EN: Strings = Strings {
    search: "Search",
    no_results: "No results",
    no_results_for: "No results for {}.",
    on_this_page: "On this page",
    previous: "Previous",
    next: "Next",
    pager: "Previous and next",
    page_not_found: "Page not found",
    page_not_found_text: "The page you were looking for does not exist.",
    menu: "Menu",
    pages: "Pages",
    sections: "Sections",
    breadcrumbs: "Breadcrumbs",
    copy: "Copy",
    copied: "Copied",
    switch_theme: "Switch theme",
    recent_changes: "Recent changes",
    skip_to_content: "Skip to content",
    privacy_policy: "Privacy policy",
    page_actions: "Page actions",
    copy_page: "Copy page",
    view_markdown: "View as Markdown",
    open_in: "Open in {}",
    copy_mcp: "Copy MCP server URL",
    edit_on: "Edit on {}",
    export_pdf: "Export as PDF",
    ask_about_page: "Ask about this page",
    everywhere: "Everywhere",
    last_updated: "Last updated",
    subpages_of: "Pages under {}",
};

const FR: Strings = Strings {
    search: "Rechercher",
    no_results: "Aucun résultat",
    no_results_for: "Aucun résultat pour {}.",
    on_this_page: "Sur cette page",
    previous: "Précédent",
    next: "Suivant",
    pager: "Précédent et suivant",
    page_not_found: "Page introuvable",
    page_not_found_text: "La page que vous cherchez n’existe pas.",
    menu: "Menu",
    pages: "Pages",
    sections: "Sections",
    breadcrumbs: "Fil d’Ariane",
    copy: "Copier",
    copied: "Copié",
    switch_theme: "Changer de thème",
    recent_changes: "Modifications récentes",
    skip_to_content: "Aller au contenu",
    privacy_policy: "Politique de confidentialité",
    page_actions: "Actions de la page",
    copy_page: "Copier la page",
    view_markdown: "Voir en Markdown",
    open_in: "Ouvrir dans {}",
    copy_mcp: "Copier l’URL du serveur MCP",
    edit_on: "Modifier sur {}",
    export_pdf: "Exporter en PDF",
    ask_about_page: "Poser une question sur cette page",
    everywhere: "Partout",
    last_updated: "Dernière mise à jour",
    subpages_of: "Pages sous {}",
};

const ES: Strings = Strings {
    search: "Buscar",
    no_results: "Sin resultados",
    no_results_for: "No hay resultados para {}.",
    on_this_page: "En esta página",
    previous: "Anterior",
    next: "Siguiente",
    pager: "Anterior y siguiente",
    page_not_found: "Página no encontrada",
    page_not_found_text: "La página que buscas no existe.",
    menu: "Menú",
    pages: "Páginas",
    sections: "Secciones",
    breadcrumbs: "Ruta de navegación",
    copy: "Copiar",
    copied: "Copiado",
    switch_theme: "Cambiar tema",
    recent_changes: "Cambios recientes",
    skip_to_content: "Ir al contenido",
    privacy_policy: "Política de privacidad",
    page_actions: "Acciones de la página",
    copy_page: "Copiar página",
    view_markdown: "Ver como Markdown",
    open_in: "Abrir en {}",
    copy_mcp: "Copiar la URL del servidor MCP",
    edit_on: "Editar en {}",
    export_pdf: "Exportar como PDF",
    ask_about_page: "Preguntar sobre esta página",
    everywhere: "En todas partes",
    last_updated: "Última actualización",
    subpages_of: "Páginas de {}",
};

const ZH: Strings = Strings {
    search: "搜索",
    no_results: "无结果",
    no_results_for: "没有与 {} 相关的结果。",
    on_this_page: "本页内容",
    previous: "上一页",
    next: "下一页",
    pager: "上一页和下一页",
    page_not_found: "页面未找到",
    page_not_found_text: "您要查找的页面不存在。",
    menu: "菜单",
    pages: "页面",
    sections: "栏目",
    breadcrumbs: "面包屑导航",
    copy: "复制",
    copied: "已复制",
    switch_theme: "切换主题",
    recent_changes: "最近更改",
    skip_to_content: "跳到正文",
    privacy_policy: "隐私政策",
    page_actions: "页面操作",
    copy_page: "复制页面",
    view_markdown: "以 Markdown 查看",
    open_in: "在 {} 中打开",
    copy_mcp: "复制 MCP 服务器地址",
    edit_on: "在 {} 上编辑",
    export_pdf: "导出为 PDF",
    ask_about_page: "询问此页面",
    everywhere: "全部",
    last_updated: "最后更新",
    subpages_of: "{} 的子页面",
};

const JA: Strings = Strings {
    search: "検索",
    no_results: "結果なし",
    no_results_for: "{} に一致する結果はありません。",
    on_this_page: "このページの内容",
    previous: "前へ",
    next: "次へ",
    pager: "前後のページ",
    page_not_found: "ページが見つかりません",
    page_not_found_text: "お探しのページは存在しません。",
    menu: "メニュー",
    pages: "ページ",
    sections: "セクション",
    breadcrumbs: "パンくずリスト",
    copy: "コピー",
    copied: "コピーしました",
    switch_theme: "テーマを切り替え",
    recent_changes: "最近の変更",
    skip_to_content: "本文へスキップ",
    privacy_policy: "プライバシーポリシー",
    page_actions: "ページの操作",
    copy_page: "ページをコピー",
    view_markdown: "Markdown で表示",
    open_in: "{} で開く",
    copy_mcp: "MCP サーバーの URL をコピー",
    edit_on: "{} で編集",
    export_pdf: "PDF としてエクスポート",
    ask_about_page: "このページについて質問",
    everywhere: "すべて",
    last_updated: "最終更新",
    subpages_of: "{} の下のページ",
};

const DE: Strings = Strings {
    search: "Suchen",
    no_results: "Keine Ergebnisse",
    no_results_for: "Keine Ergebnisse für {}.",
    on_this_page: "Auf dieser Seite",
    previous: "Zurück",
    next: "Weiter",
    pager: "Zurück und weiter",
    page_not_found: "Seite nicht gefunden",
    page_not_found_text: "Die gesuchte Seite existiert nicht.",
    menu: "Menü",
    pages: "Seiten",
    sections: "Bereiche",
    breadcrumbs: "Navigationspfad",
    copy: "Kopieren",
    copied: "Kopiert",
    switch_theme: "Design wechseln",
    recent_changes: "Letzte Änderungen",
    skip_to_content: "Zum Inhalt springen",
    privacy_policy: "Datenschutzerklärung",
    page_actions: "Seitenaktionen",
    copy_page: "Seite kopieren",
    view_markdown: "Als Markdown anzeigen",
    open_in: "In {} öffnen",
    copy_mcp: "MCP-Server-URL kopieren",
    edit_on: "Auf {} bearbeiten",
    export_pdf: "Als PDF exportieren",
    ask_about_page: "Zu dieser Seite fragen",
    everywhere: "Überall",
    last_updated: "Zuletzt aktualisiert",
    subpages_of: "Seiten unter {}",
};

const NL: Strings = Strings {
    search: "Zoeken",
    no_results: "Geen resultaten",
    no_results_for: "Geen resultaten voor {}.",
    on_this_page: "Op deze pagina",
    previous: "Vorige",
    next: "Volgende",
    pager: "Vorige en volgende",
    page_not_found: "Pagina niet gevonden",
    page_not_found_text: "De pagina die je zoekt bestaat niet.",
    menu: "Menu",
    pages: "Pagina’s",
    sections: "Secties",
    breadcrumbs: "Kruimelpad",
    copy: "Kopiëren",
    copied: "Gekopieerd",
    switch_theme: "Thema wisselen",
    recent_changes: "Recente wijzigingen",
    skip_to_content: "Naar de inhoud",
    privacy_policy: "Privacybeleid",
    page_actions: "Pagina-acties",
    copy_page: "Pagina kopiëren",
    view_markdown: "Bekijken als Markdown",
    open_in: "Openen in {}",
    copy_mcp: "MCP-server-URL kopiëren",
    edit_on: "Bewerken op {}",
    export_pdf: "Exporteren als PDF",
    ask_about_page: "Vraag over deze pagina",
    everywhere: "Overal",
    last_updated: "Laatst bijgewerkt",
    subpages_of: "Pagina's onder {}",
};

const NO: Strings = Strings {
    search: "Søk",
    no_results: "Ingen resultater",
    no_results_for: "Ingen resultater for {}.",
    on_this_page: "På denne siden",
    previous: "Forrige",
    next: "Neste",
    pager: "Forrige og neste",
    page_not_found: "Fant ikke siden",
    page_not_found_text: "Siden du leter etter, finnes ikke.",
    menu: "Meny",
    pages: "Sider",
    sections: "Seksjoner",
    breadcrumbs: "Brødsmulesti",
    copy: "Kopier",
    copied: "Kopiert",
    switch_theme: "Bytt tema",
    recent_changes: "Nylige endringer",
    skip_to_content: "Hopp til innholdet",
    privacy_policy: "Personvernerklæring",
    page_actions: "Sidehandlinger",
    copy_page: "Kopier siden",
    view_markdown: "Vis som Markdown",
    open_in: "Åpne i {}",
    copy_mcp: "Kopier MCP-serverens URL",
    edit_on: "Rediger på {}",
    export_pdf: "Eksporter som PDF",
    ask_about_page: "Spør om denne siden",
    everywhere: "Overalt",
    last_updated: "Sist oppdatert",
    subpages_of: "Sider under {}",
};

const PT_BR: Strings = Strings {
    search: "Pesquisar",
    no_results: "Nenhum resultado",
    no_results_for: "Nenhum resultado para {}.",
    on_this_page: "Nesta página",
    previous: "Anterior",
    next: "Próximo",
    pager: "Anterior e próximo",
    page_not_found: "Página não encontrada",
    page_not_found_text: "A página que você procura não existe.",
    menu: "Menu",
    pages: "Páginas",
    sections: "Seções",
    breadcrumbs: "Trilha de navegação",
    copy: "Copiar",
    copied: "Copiado",
    switch_theme: "Alternar tema",
    recent_changes: "Alterações recentes",
    skip_to_content: "Pular para o conteúdo",
    privacy_policy: "Política de privacidade",
    page_actions: "Ações da página",
    copy_page: "Copiar página",
    view_markdown: "Ver como Markdown",
    open_in: "Abrir no {}",
    copy_mcp: "Copiar URL do servidor MCP",
    edit_on: "Editar no {}",
    export_pdf: "Exportar como PDF",
    ask_about_page: "Perguntar sobre esta página",
    everywhere: "Em todo lugar",
    last_updated: "Última atualização",
    subpages_of: "Páginas em {}",
};

const RU: Strings = Strings {
    search: "Поиск",
    no_results: "Ничего не найдено",
    no_results_for: "По запросу {} ничего не найдено.",
    on_this_page: "На этой странице",
    previous: "Назад",
    next: "Далее",
    pager: "Назад и далее",
    page_not_found: "Страница не найдена",
    page_not_found_text: "Запрашиваемая страница не существует.",
    menu: "Меню",
    pages: "Страницы",
    sections: "Разделы",
    breadcrumbs: "Навигационная цепочка",
    copy: "Копировать",
    copied: "Скопировано",
    switch_theme: "Сменить тему",
    recent_changes: "Последние изменения",
    skip_to_content: "Перейти к содержимому",
    privacy_policy: "Политика конфиденциальности",
    page_actions: "Действия со страницей",
    copy_page: "Скопировать страницу",
    view_markdown: "Открыть как Markdown",
    open_in: "Открыть в {}",
    copy_mcp: "Скопировать адрес MCP-сервера",
    edit_on: "Изменить на {}",
    export_pdf: "Экспорт в PDF",
    ask_about_page: "Спросить об этой странице",
    everywhere: "Везде",
    last_updated: "Обновлено",
    subpages_of: "Страницы раздела {}",
};

impl Language {
    /// The language of a locale setting: `fr`, `FR`, `fr-CA` and `fr_FR`
    /// are French, `pt` and `pt-BR` Brazilian Portuguese; anything else
    /// is English.
    pub fn of_locale(locale: &str) -> Language {
        let locale = locale.trim().to_ascii_lowercase().replace('_', "-");
        let primary = locale.split('-').next().unwrap_or_default();
        match primary {
            "fr" => Language::Fr,
            "es" => Language::Es,
            "zh" => Language::Zh,
            "ja" => Language::Ja,
            "de" => Language::De,
            "nl" => Language::Nl,
            "no" | "nb" => Language::No,
            "pt" => Language::PtBr,
            "ru" => Language::Ru,
            _ => Language::En,
        }
    }

    /// The language tag for `<html lang>`.
    pub fn tag(self) -> &'static str {
        match self {
            Language::En => "en",
            Language::Fr => "fr",
            Language::Es => "es",
            Language::Zh => "zh",
            Language::Ja => "ja",
            Language::De => "de",
            Language::Nl => "nl",
            Language::No => "no",
            Language::PtBr => "pt-BR",
            Language::Ru => "ru",
        }
    }

    pub fn strings(self) -> &'static Strings {
        match self {
            Language::En => &EN,
            Language::Fr => &FR,
            Language::Es => &ES,
            Language::Zh => &ZH,
            Language::Ja => &JA,
            Language::De => &DE,
            Language::Nl => &NL,
            Language::No => &NO,
            Language::PtBr => &PT_BR,
            Language::Ru => &RU,
        }
    }
}

impl Strings {
    /// "No results for …" around a query, as text before and after it.
    pub fn no_results_for(&self) -> (&'static str, &'static str) {
        self.no_results_for
            .split_once("{}")
            .unwrap_or((self.no_results_for, ""))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Language; 10] = [
        Language::En,
        Language::Fr,
        Language::Es,
        Language::Zh,
        Language::Ja,
        Language::De,
        Language::Nl,
        Language::No,
        Language::PtBr,
        Language::Ru,
    ];

    #[test]
    fn locales_name_languages() {
        assert_eq!(Language::of_locale("fr"), Language::Fr);
        assert_eq!(Language::of_locale("FR_ca"), Language::Fr);
        assert_eq!(Language::of_locale("pt-br"), Language::PtBr);
        assert_eq!(Language::of_locale("zh"), Language::Zh);
        assert_eq!(Language::of_locale("ja"), Language::Ja);
        assert_eq!(Language::of_locale("de"), Language::De);
        assert_eq!(Language::of_locale("es"), Language::Es);
        assert_eq!(Language::of_locale(""), Language::En);
        assert_eq!(Language::of_locale("tlh"), Language::En);
        assert_eq!(Language::of_locale("\"><script>"), Language::En);
        assert_eq!(Language::PtBr.tag(), "pt-BR");
        assert_eq!(Language::Ja.tag(), "ja");
    }

    #[test]
    fn every_language_has_every_string() {
        for language in ALL {
            let s = language.strings();
            let all = [
                s.search,
                s.no_results,
                s.no_results_for,
                s.on_this_page,
                s.previous,
                s.next,
                s.pager,
                s.page_not_found,
                s.page_not_found_text,
                s.menu,
                s.pages,
                s.sections,
                s.breadcrumbs,
                s.copy,
                s.copied,
                s.switch_theme,
                s.recent_changes,
                s.skip_to_content,
                s.privacy_policy,
                s.page_actions,
                s.copy_page,
                s.view_markdown,
                s.open_in,
                s.copy_mcp,
                s.edit_on,
            ];
            assert!(all.iter().all(|t| !t.trim().is_empty()), "{language:?}");
            assert_eq!(s.no_results_for.matches("{}").count(), 1, "{language:?}");
            if language != Language::En {
                assert_ne!(s.search, EN.search, "{language:?}");
                assert_ne!(s.on_this_page, EN.on_this_page, "{language:?}");
            }
        }
        assert_eq!(Language::Fr.strings().no_results_for(), ("Aucun résultat pour ", "."));
        assert_eq!(
            Language::Ja.strings().no_results_for(),
            ("", " に一致する結果はありません。")
        );
    }
}
