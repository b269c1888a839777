//! Conditions of adaptive content: a small, safe expression language
//! evaluated against a visitor's claims, such as
//! `visitor.claims.unsigned.beta == true && visitor.claims.plan == "pro"`.
//!
//! Grammar: `||`, `&&`, `!`, comparisons (`==`, `!=`, `===`, `!==`, `<`,
//! `<=`, `>`, `>=`), parentheses, literals (`true`, `false`, `null`,
//! numbers, single- or double-quoted strings) and paths (`a.b.c`,
//! `a["b"]`). Nothing else: no calls, no assignment, so evaluating a saved
//! condition can neither loop nor touch anything but the claims. Parsing
//! is bounded (1,024 characters, nesting depth 32); evaluation never
//! fails: a missing path is `null`, comparisons of different kinds are
//! false.

use serde_json::Value;

const MAX_LEN: usize = 1024;
const MAX_DEPTH: usize = 32;

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Literal(Value),
    Path(Vec<String>),
    Not(Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Compare(Box<Expr>, Op, Box<Expr>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// Why a condition does not parse, with the character offset.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} at character {at}")]
pub struct ParseError {
    pub message: String,
    pub at: usize,
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    Str(String),
    Num(f64),
    Sym(&'static str),
}

fn tokenize(text: &str) -> Result<Vec<(Token, usize)>, ParseError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let err = |message: &str, at: usize| ParseError {
        message: message.to_owned(),
        at,
    };
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if c.is_alphabetic() || c == '_' || c == '$' {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '$') {
                i += 1;
            }
            out.push((Token::Ident(chars[start..i].iter().collect()), start));
        } else if c.is_ascii_digit() || (c == '-' && chars.get(i + 1).is_some_and(char::is_ascii_digit)) {
            i += 1;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                i += 1;
            }
            let text: String = chars[start..i].iter().collect();
            let n = text.parse().map_err(|_| err("invalid number", start))?;
            out.push((Token::Num(n), start));
        } else if c == '"' || c == '\'' {
            i += 1;
            let mut s = String::new();
            loop {
                match chars.get(i) {
                    None => return Err(err("unterminated string", start)),
                    Some(&q) if q == c => break,
                    Some('\\') => {
                        let escaped = chars.get(i + 1).ok_or_else(|| err("unterminated string", start))?;
                        s.push(match escaped {
                            'n' => '\n',
                            't' => '\t',
                            other => *other,
                        });
                        i += 2;
                    }
                    Some(&other) => {
                        s.push(other);
                        i += 1;
                    }
                }
            }
            i += 1;
            out.push((Token::Str(s), start));
        } else {
            let rest: String = chars[i..chars.len().min(i + 3)].iter().collect();
            let sym = [
                "===", "!==", "==", "!=", "<=", ">=", "&&", "||", "<", ">", "!", "(", ")", ".", "[", "]",
            ]
            .into_iter()
            .find(|s| rest.starts_with(s))
            .ok_or_else(|| err(&format!("unexpected character {c:?}"), start))?;
            i += sym.chars().count();
            out.push((Token::Sym(sym), start));
        }
    }
    Ok(out)
}

struct Parser {
    tokens: Vec<(Token, usize)>,
    at: usize,
    end: usize,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at).map(|(t, _)| t)
    }

    fn offset(&self) -> usize {
        self.tokens.get(self.at).map_or(self.end, |(_, o)| *o)
    }

    fn error(&self, message: &str) -> ParseError {
        ParseError {
            message: message.to_owned(),
            at: self.offset(),
        }
    }

    fn eat(&mut self, sym: &str) -> bool {
        if matches!(self.peek(), Some(Token::Sym(s)) if *s == sym) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn nested<T>(&mut self, f: impl FnOnce(&mut Parser) -> Result<T, ParseError>) -> Result<T, ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("expression nested too deeply"));
        }
        let out = f(self);
        self.depth -= 1;
        out
    }

    fn or(&mut self) -> Result<Expr, ParseError> {
        let mut left = self.and()?;
        while self.eat("||") {
            left = Expr::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr, ParseError> {
        let mut left = self.not()?;
        while self.eat("&&") {
            left = Expr::And(Box::new(left), Box::new(self.not()?));
        }
        Ok(left)
    }

    fn not(&mut self) -> Result<Expr, ParseError> {
        if self.eat("!") {
            return self.nested(|p| Ok(Expr::Not(Box::new(p.not()?))));
        }
        self.compare()
    }

    fn compare(&mut self) -> Result<Expr, ParseError> {
        let left = self.primary()?;
        let op = match self.peek() {
            Some(Token::Sym("==" | "===")) => Op::Eq,
            Some(Token::Sym("!=" | "!==")) => Op::Ne,
            Some(Token::Sym("<")) => Op::Lt,
            Some(Token::Sym("<=")) => Op::Le,
            Some(Token::Sym(">")) => Op::Gt,
            Some(Token::Sym(">=")) => Op::Ge,
            _ => return Ok(left),
        };
        self.at += 1;
        let right = self.primary()?;
        Ok(Expr::Compare(Box::new(left), op, Box::new(right)))
    }

    fn primary(&mut self) -> Result<Expr, ParseError> {
        let token = self.peek().cloned().ok_or_else(|| self.error("expected a value"))?;
        self.at += 1;
        match token {
            Token::Sym("(") => {
                let inner = self.nested(|p| p.or())?;
                if !self.eat(")") {
                    return Err(self.error("expected ')'"));
                }
                Ok(inner)
            }
            Token::Str(s) => Ok(Expr::Literal(Value::String(s))),
            Token::Num(n) => Ok(Expr::Literal(
                serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number),
            )),
            Token::Ident(word) => match word.as_str() {
                "true" => Ok(Expr::Literal(Value::Bool(true))),
                "false" => Ok(Expr::Literal(Value::Bool(false))),
                "null" | "undefined" => Ok(Expr::Literal(Value::Null)),
                _ => self.path(word),
            },
            Token::Sym(s) => {
                self.at -= 1;
                Err(self.error(&format!("unexpected {s:?}")))
            }
        }
    }

    fn path(&mut self, first: String) -> Result<Expr, ParseError> {
        let mut parts = vec![first];
        loop {
            if self.eat(".") {
                match self.peek().cloned() {
                    Some(Token::Ident(name)) => {
                        self.at += 1;
                        parts.push(name);
                    }
                    _ => return Err(self.error("expected a name after '.'")),
                }
            } else if self.eat("[") {
                match self.peek().cloned() {
                    Some(Token::Str(name)) => {
                        self.at += 1;
                        parts.push(name);
                    }
                    _ => return Err(self.error("expected a quoted name inside '[ ]'")),
                }
                if !self.eat("]") {
                    return Err(self.error("expected ']'"));
                }
            } else {
                return Ok(Expr::Path(parts));
            }
        }
    }
}

/// Checks a condition as it is saved (sections, site spaces, pages): an
/// expression that parses; the message says why not.
pub fn check_condition(text: &str) -> Result<(), String> {
    parse(text).map(|_| ()).map_err(|e| format!("condition: {e}"))
}

/// Parses a condition. An empty (or blank) condition is `true`.
pub fn parse(text: &str) -> Result<Expr, ParseError> {
    if text.chars().count() > MAX_LEN {
        return Err(ParseError {
            message: format!("longer than {MAX_LEN} characters"),
            at: MAX_LEN,
        });
    }
    let tokens = tokenize(text)?;
    if tokens.is_empty() {
        return Ok(Expr::Literal(Value::Bool(true)));
    }
    let mut parser = Parser {
        tokens,
        at: 0,
        end: text.chars().count(),
        depth: 0,
    };
    let expr = parser.or()?;
    if parser.at < parser.tokens.len() {
        return Err(parser.error("unexpected text after the expression"));
    }
    Ok(expr)
}

fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0 && !f.is_nan()),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

fn value(expr: &Expr, context: &Value) -> Value {
    match expr {
        Expr::Literal(v) => v.clone(),
        Expr::Path(parts) => {
            let mut at = context;
            for part in parts {
                match at.get(part) {
                    Some(next) => at = next,
                    None => return Value::Null,
                }
            }
            at.clone()
        }
        other => Value::Bool(evaluate(other, context)),
    }
}

/// The value of an expression shown in a page (`space.vars.version`): a
/// path's value, a literal, or a comparison's truth.
pub fn value_of(expr: &Expr, context: &Value) -> Value {
    value(expr, context)
}

/// Evaluates the expression against `context` (an object such as
/// `{"visitor": {"claims": {...}}}`).
pub fn evaluate(expr: &Expr, context: &Value) -> bool {
    match expr {
        Expr::Not(inner) => !evaluate(inner, context),
        Expr::And(a, b) => evaluate(a, context) && evaluate(b, context),
        Expr::Or(a, b) => evaluate(a, context) || evaluate(b, context),
        Expr::Compare(a, op, b) => {
            let (a, b) = (value(a, context), value(b, context));
            match op {
                Op::Eq => a == b,
                Op::Ne => a != b,
                _ => {
                    let ordering = match (&a, &b) {
                        (Value::Number(x), Value::Number(y)) => {
                            x.as_f64().zip(y.as_f64()).and_then(|(x, y)| x.partial_cmp(&y))
                        }
                        (Value::String(x), Value::String(y)) => Some(x.cmp(y)),
                        _ => None,
                    };
                    ordering.is_some_and(|o| match op {
                        Op::Lt => o.is_lt(),
                        Op::Le => o.is_le(),
                        Op::Gt => o.is_gt(),
                        Op::Ge => o.is_ge(),
                        Op::Eq | Op::Ne => false,
                    })
                }
            }
        }
        Expr::Literal(_) | Expr::Path(_) => truthy(&value(expr, context)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(text: &str, context: &Value) -> bool {
        evaluate(&parse(text).unwrap(), context)
    }

    #[test]
    fn conditions_on_claims() {
        let visitor = json!({ "visitor": { "claims": { "plan": "pro", "seats": 5, "unsigned": { "beta": true } } } });
        assert!(check(
            "visitor.claims.unsigned.beta == true && visitor.claims.plan == \"pro\"",
            &visitor
        ));
        assert!(check(
            "visitor.claims.seats >= 5 && !(visitor.claims.plan === 'free')",
            &visitor
        ));
        assert!(check("visitor.claims[\"plan\"] != 'team' || false", &visitor));
        assert!(!check("visitor.claims.missing.deeper == true", &visitor));
        assert!(!check("visitor.claims.plan > 3", &visitor));
        assert!(check("visitor.claims.unsigned.beta", &visitor));
        assert!(check("", &visitor));
        assert!(check("  ", &visitor));
    }

    #[test]
    fn malformed_conditions_are_refused() {
        for bad in [
            "visitor.claims ==",
            "(a == b",
            "a = b",
            "a == b)",
            "fetch('x')",
            "a.",
            "a[b]",
            "'open",
            "a ; b",
            &"(".repeat(40),
            &"a".repeat(1025),
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        assert_eq!(parse("a == b)").unwrap_err().at, 6);
    }
}
