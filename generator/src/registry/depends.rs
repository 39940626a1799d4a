//! `depends=` expressions (Khronos `parse_dependency.py`): `+` is AND, `,` is OR, both left
//! associative at the same precedence, parentheses group. Operands are version names, extension names
//! and `VkStruct::member` feature booleans.

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    Name(String),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
}

impl Expr {
    pub fn parse(s: &str) -> Result<Expr, String> {
        let toks = lex(s)?;
        let mut p = Parser {
            toks: &toks,
            pos: 0,
        };
        let e = p.expr()?;
        if p.pos != toks.len() {
            return Err(format!("trailing input in dependency `{s}`"));
        }
        Ok(e)
    }

    /// Evaluates with `name_true` deciding each operand.
    pub fn eval(&self, name_true: &mut dyn FnMut(&str) -> bool) -> bool {
        match self {
            Expr::Name(n) => name_true(n),
            Expr::And(a, b) => a.eval(name_true) && b.eval(name_true),
            Expr::Or(a, b) => a.eval(name_true) || b.eval(name_true),
        }
    }

    /// Every operand, in order.
    pub fn names(&self) -> Vec<&str> {
        let mut v = Vec::new();
        self.collect(&mut v);
        v
    }

    fn collect<'a>(&'a self, v: &mut Vec<&'a str>) {
        match self {
            Expr::Name(n) => v.push(n),
            Expr::And(a, b) | Expr::Or(a, b) => {
                a.collect(v);
                b.collect(v);
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Name(String),
    And,
    Or,
    Open,
    Close,
}

fn lex(s: &str) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    let mut chars = s.chars().peekable();
    while let Some(&c) = chars.peek() {
        match c {
            '+' => {
                out.push(Tok::And);
                chars.next();
            }
            ',' => {
                out.push(Tok::Or);
                chars.next();
            }
            '(' => {
                out.push(Tok::Open);
                chars.next();
            }
            ')' => {
                out.push(Tok::Close);
                chars.next();
            }
            c if c.is_whitespace() => {
                chars.next();
            }
            c if c.is_ascii_alphanumeric() || c == '_' || c == ':' => {
                let mut n = String::new();
                while let Some(&c) = chars.peek() {
                    if c.is_ascii_alphanumeric() || c == '_' || c == ':' {
                        n.push(c);
                        chars.next();
                    } else {
                        break;
                    }
                }
                out.push(Tok::Name(n));
            }
            other => return Err(format!("unexpected `{other}` in dependency `{s}`")),
        }
    }
    Ok(out)
}

struct Parser<'a> {
    toks: &'a [Tok],
    pos: usize,
}

impl Parser<'_> {
    fn expr(&mut self) -> Result<Expr, String> {
        let mut lhs = self.atom()?;
        loop {
            match self.toks.get(self.pos) {
                Some(Tok::And) => {
                    self.pos += 1;
                    lhs = Expr::And(Box::new(lhs), Box::new(self.atom()?));
                }
                Some(Tok::Or) => {
                    self.pos += 1;
                    lhs = Expr::Or(Box::new(lhs), Box::new(self.atom()?));
                }
                _ => return Ok(lhs),
            }
        }
    }

    fn atom(&mut self) -> Result<Expr, String> {
        match self.toks.get(self.pos) {
            Some(Tok::Name(n)) => {
                self.pos += 1;
                Ok(Expr::Name(n.clone()))
            }
            Some(Tok::Open) => {
                self.pos += 1;
                let e = self.expr()?;
                if self.toks.get(self.pos) != Some(&Tok::Close) {
                    return Err("missing `)` in dependency".into());
                }
                self.pos += 1;
                Ok(e)
            }
            other => Err(format!(
                "expected a name or `(` in dependency, found {other:?}"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested() {
        let e = Expr::parse("((((A,B)+C+D),E)+F),G").unwrap();
        let eval = |set: &[&str]| e.eval(&mut |n| set.contains(&n));
        assert!(eval(&["G"]));
        assert!(eval(&["A", "C", "D", "F"]));
        assert!(!eval(&["A", "C", "F"]));
        assert!(eval(&["E", "F"]));
    }

    #[test]
    fn struct_member_operands() {
        let e = Expr::parse("VK_VERSION_1_1+VkPhysicalDeviceFeatures::sparseBinding").unwrap();
        assert_eq!(
            e.names(),
            vec!["VK_VERSION_1_1", "VkPhysicalDeviceFeatures::sparseBinding"]
        );
    }

    #[test]
    fn malformed() {
        for bad in ["", "(A", "A+", "A B", "A)", "A$B", "+"] {
            assert!(Expr::parse(bad).is_err(), "{bad}");
        }
    }
}
