//! A table of results, as the studies and `reproduce` print them.

/// A table of results, printable as Markdown or CSV.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub title: String,
    pub notes: Vec<String>,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    pub fn to_markdown(&self) -> String {
        // A `|` inside a cell would start a new column: escape it.
        let row = |cells: &[String]| {
            let cells: Vec<String> = cells.iter().map(|c| c.replace('|', "\\|")).collect();
            format!("| {} |\n", cells.join(" | "))
        };
        let mut out = format!("### {}\n\n", self.title);
        out += &row(&self.columns);
        out += &format!("|{}\n", "---|".repeat(self.columns.len()));
        for r in &self.rows {
            out += &row(r);
        }
        for n in &self.notes {
            out += &format!("\n{n}\n");
        }
        out
    }

    pub fn to_csv(&self) -> String {
        let quote = |s: &String| {
            if s.contains(',') || s.contains('"') {
                format!("\"{}\"", s.replace('"', "\"\""))
            } else {
                s.clone()
            }
        };
        let mut out = String::new();
        for line in std::iter::once(&self.columns).chain(&self.rows) {
            out += &line.iter().map(quote).collect::<Vec<_>>().join(",");
            out.push('\n');
        }
        out
    }
}
