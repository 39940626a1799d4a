//! `depends=` expressions (Khronos `parse_dependency.py`): `+` is AND, `,` is OR, both left
//! associative at the same precedence, parentheses group. Operands are version names, extension names
//! and `VkStruct::member` feature booleans.

/// A parsed expression in postfix order, so that parsing, evaluation and dropping need no
/// recursion however deep the parentheses or long the operand list (hostile input must not
/// overflow the stack).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expr {
    ops: Vec<Op>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Op {
    Name(String),
    And,
    Or,
}

impl Expr {
    pub fn parse(s: &str) -> Result<Expr, String> {
        let shown = clip(s);
        let toks = lex(s, &shown)?;
        // Shunting-yard: `+` and `,` share one precedence and associate left.
        let mut ops = Vec::with_capacity(toks.len());
        let mut stack: Vec<Tok> = Vec::new();
        let mut want_operand = true;
        for t in toks {
            match t {
                Tok::Name(n) if want_operand => {
                    ops.push(Op::Name(n));
                    want_operand = false;
                }
                Tok::Open if want_operand => stack.push(Tok::Open),
                Tok::And | Tok::Or if !want_operand => {
                    while let Some(top) = stack.pop() {
                        match top {
                            Tok::And => ops.push(Op::And),
                            Tok::Or => ops.push(Op::Or),
                            other => {
                                stack.push(other);
                                break;
                            }
                        }
                    }
                    stack.push(t);
                    want_operand = true;
                }
                Tok::Close if !want_operand => loop {
                    match stack.pop() {
                        Some(Tok::And) => ops.push(Op::And),
                        Some(Tok::Or) => ops.push(Op::Or),
                        Some(_) => break,
                        None => return Err(format!("unbalanced `)` in dependency `{shown}`")),
                    }
                },
                Tok::Close => {
                    return Err(format!(
                        "expected a name or `(` in dependency `{shown}`, found `)`"
                    ))
                }
                Tok::Name(_) | Tok::Open => {
                    return Err(format!("trailing input in dependency `{shown}`"))
                }
                Tok::And | Tok::Or => {
                    return Err(format!(
                        "expected a name or `(` in dependency `{shown}`, found an operator"
                    ))
                }
            }
        }
        if want_operand {
            return Err(format!(
                "expected a name or `(` in dependency `{shown}`, found the end"
            ));
        }
        while let Some(top) = stack.pop() {
            match top {
                Tok::And => ops.push(Op::And),
                Tok::Or => ops.push(Op::Or),
                _ => return Err(format!("missing `)` in dependency `{shown}`")),
            }
        }
        Ok(Expr { ops })
    }

    /// Evaluates with `name_true` deciding each operand. Every operand is asked, in order (no
    /// short-circuit: the callers' deciders have no side effects that depend on it).
    pub fn eval(&self, name_true: &mut dyn FnMut(&str) -> bool) -> bool {
        let mut stack: Vec<bool> = Vec::new();
        for op in &self.ops {
            let v = match op {
                Op::Name(n) => name_true(n),
                Op::And | Op::Or => {
                    let (Some(b), Some(a)) = (stack.pop(), stack.pop()) else {
                        return false; // unreachable: `parse` only builds well-formed postfix
                    };
                    if *op == Op::And {
                        a && b
                    } else {
                        a || b
                    }
                }
            };
            stack.push(v);
        }
        stack.pop().unwrap_or(false)
    }

    /// Every operand, in order.
    pub fn names(&self) -> Vec<&str> {
        self.ops
            .iter()
            .filter_map(|o| match o {
                Op::Name(n) => Some(n.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// At most 80 characters of a dependency, for messages about hostile input.
fn clip(s: &str) -> String {
    match s.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
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

fn lex(s: &str, shown: &str) -> Result<Vec<Tok>, String> {
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
            other => return Err(format!("unexpected `{other}` in dependency `{shown}`")),
        }
    }
    Ok(out)
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
        for bad in [
            "", "(A", "A+", "A B", "A)", "A$B", "+", "()", "(A+)", "A(B)",
        ] {
            assert!(Expr::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn deep_and_long_dependencies_do_not_recurse() {
        let deep = format!("{}A{}", "(".repeat(100_000), ")".repeat(100_000));
        assert!(Expr::parse(&deep).unwrap().eval(&mut |n| n == "A"));
        let long = vec!["A"; 300_000].join("+");
        let e = Expr::parse(&long).unwrap();
        assert!(e.eval(&mut |n| n == "A"));
        assert_eq!(e.names().len(), 300_000);
        let unbalanced = format!("{}A", "(".repeat(100_000));
        assert!(Expr::parse(&unbalanced).is_err());
    }
}
