//! C declarations inside vk.xml markup: `const <type>char</type>* const* <name>ppNames</name>`,
//! `<type>float</type> <name>matrix</name>[3][4]`, `<name>mask</name>:24`, and both funcpointer
//! forms (the C text one before 1.4.339, the `<proto>`/`<param>` one after). The markup tells us which
//! word is the type and which the name; the text between says `const`, `*`, arrays and bitfields.

use crate::model::{ArrayLen, CType, Field};

#[derive(Debug, Clone, PartialEq)]
pub enum Token {
    /// `<type>X</type>`
    Type(String),
    /// `<name>x</name>`
    Name(String),
    /// `<enum>X</enum>` (array sizes)
    Enum(String),
    Word(String),
    Number(u32),
    Punct(char),
}

/// A token as the registry wrote it, for messages: `'-'`, `` `foo` ``, `<type>Foo</type>`, or the
/// end of the declaration (never Rust's `Some(Punct('-'))`).
pub fn describe(t: Option<&Token>) -> String {
    fn clip(s: &str) -> String {
        match s.char_indices().nth(80) {
            Some((i, _)) => format!("{}…", &s[..i]),
            None => s.to_owned(),
        }
    }
    match t {
        None => "end of declaration".to_owned(),
        Some(Token::Punct(c)) => format!("'{c}'"),
        Some(Token::Number(n)) => n.to_string(),
        Some(Token::Word(w)) => format!("`{}`", clip(w)),
        Some(Token::Type(w)) => format!("<type>{}</type>", clip(w)),
        Some(Token::Name(w)) => format!("<name>{}</name>", clip(w)),
        Some(Token::Enum(w)) => format!("<enum>{}</enum>", clip(w)),
    }
}

/// Turns the children of an element into tokens; `<comment>` children are dropped.
pub fn tokenize(node: roxmltree::Node) -> Vec<Token> {
    let mut out = Vec::new();
    for child in node.children() {
        if child.is_text() {
            lex_text(child.text().unwrap_or(""), &mut out);
        } else if child.is_element() {
            let text = child.text().unwrap_or("").trim().to_owned();
            match child.tag_name().name() {
                "type" => out.push(Token::Type(text)),
                "name" => out.push(Token::Name(text)),
                "enum" => out.push(Token::Enum(text)),
                _ => {}
            }
        }
    }
    out
}

fn lex_text(text: &str, out: &mut Vec<Token>) {
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c.is_ascii_alphabetic() || c == '_' {
            let mut w = String::new();
            while let Some(&c) = chars.peek() {
                if c.is_ascii_alphanumeric() || c == '_' {
                    w.push(c);
                    chars.next();
                } else {
                    break;
                }
            }
            out.push(Token::Word(w));
        } else if c.is_ascii_digit() {
            let mut w = String::new();
            while let Some(&c) = chars.peek() {
                if c.is_ascii_digit() {
                    w.push(c);
                    chars.next();
                } else {
                    break;
                }
            }
            out.push(Token::Number(w.parse().unwrap_or(u32::MAX)));
        } else {
            out.push(Token::Punct(c));
            chars.next();
        }
    }
}

/// Parses one declaration (`[const] [struct] T [const] *… name [N]… [:bits]`). The name may be
/// unmarked (old funcpointer parameters), in which case the last plain word is the name.
pub fn parse_decl(tokens: &[Token]) -> Result<(String, CType), String> {
    let mut ty = CType::default();
    let mut name: Option<String> = None;
    let mut i = 0;
    let mut seen_base = false;
    while i < tokens.len() {
        match &tokens[i] {
            Token::Word(w) if w == "const" => {
                if seen_base {
                    if let Some(last) = ty.pointers.last_mut() {
                        *last = true;
                    } else {
                        // `T const` is the same as `const T`.
                        ty.base_const = true;
                    }
                } else {
                    ty.base_const = true;
                }
            }
            Token::Word(w) if w == "struct" || w == "typedef" => {}
            Token::Type(t) if !seen_base => {
                ty.base = t.clone();
                seen_base = true;
            }
            Token::Word(w) if !seen_base => {
                ty.base = w.clone();
                seen_base = true;
            }
            Token::Punct('*') => ty.pointers.push(false),
            Token::Name(n) => name = Some(n.clone()),
            Token::Word(w) if seen_base && name.is_none() => name = Some(w.clone()),
            Token::Punct('[') => {
                let len = match tokens.get(i + 1) {
                    Some(Token::Number(n)) => ArrayLen::Literal(*n),
                    Some(Token::Enum(e)) | Some(Token::Word(e)) => ArrayLen::Constant(e.clone()),
                    other => return Err(format!("unexpected array length {}", describe(other))),
                };
                if tokens.get(i + 2) != Some(&Token::Punct(']')) {
                    return Err("unterminated array length".into());
                }
                ty.array.push(len);
                i += 2;
            }
            Token::Punct(':') => match tokens.get(i + 1) {
                Some(Token::Number(n)) if *n <= 64 => {
                    ty.bitfield = Some(*n as u8);
                    i += 1;
                }
                other => return Err(format!("bad bitfield width {}", describe(other))),
            },
            Token::Punct(';') | Token::Punct(',') => {}
            other => return Err(format!("unexpected {}", describe(Some(other)))),
        }
        i += 1;
    }
    if ty.base.is_empty() {
        return Err("declaration without a type".into());
    }
    let name = name.ok_or_else(|| "declaration without a name".to_owned())?;
    Ok((name, ty))
}

/// Parses the return type and name of a `<proto>`.
pub fn parse_proto(tokens: &[Token]) -> Result<(String, CType), String> {
    parse_decl(tokens)
}

/// The pre-1.4.339 funcpointer form: `typedef R (VKAPI_PTR *<name>PFN_x</name>)(T a, U* b);`.
pub fn parse_old_funcpointer(tokens: &[Token]) -> Result<(String, CType, Vec<Field>), String> {
    let open = tokens
        .iter()
        .position(|t| *t == Token::Punct('('))
        .ok_or("funcpointer without '('")?;
    let mut ret = CType::default();
    for t in &tokens[..open] {
        match t {
            Token::Word(w) if w == "typedef" => {}
            Token::Word(w) if w == "const" => ret.base_const = true,
            Token::Type(t) | Token::Word(t) => ret.base = t.clone(),
            Token::Punct('*') => ret.pointers.push(false),
            other => {
                return Err(format!(
                    "unexpected {} in return type",
                    describe(Some(other))
                ))
            }
        }
    }
    let name = tokens
        .iter()
        .find_map(|t| match t {
            Token::Name(n) => Some(n.clone()),
            _ => None,
        })
        .ok_or("funcpointer without a name")?;
    let name_pos = tokens
        .iter()
        .position(|t| matches!(t, Token::Name(_)))
        .unwrap_or(0);
    // After the name: `)` `(` params `)` `;`
    let params_start = tokens[name_pos..]
        .windows(2)
        .position(|w| w[0] == Token::Punct(')') && w[1] == Token::Punct('('))
        .map(|p| name_pos + p + 2)
        .ok_or("funcpointer without a parameter list")?;
    let params_end = tokens
        .iter()
        .rposition(|t| *t == Token::Punct(')'))
        .ok_or("unterminated parameters")?;
    let body = &tokens[params_start..params_end.max(params_start)];
    let mut params = Vec::new();
    if !(body.is_empty()
        || body == [Token::Word("void".into())]
        || body == [Token::Type("void".into())])
    {
        for part in body.split(|t| *t == Token::Punct(',')) {
            let (pname, pty) = parse_decl(part)?;
            params.push(Field {
                name: pname,
                ty: pty,
                len: None,
                optional: false,
                values: None,
                limittype: None,
            });
        }
    }
    Ok((name, ret, params))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(xml: &str) -> Vec<Token> {
        let doc = roxmltree::Document::parse(xml).unwrap();
        tokenize(doc.root_element())
    }

    #[test]
    fn const_pointer_to_const_pointer() {
        let (n, t) = parse_decl(&toks(
            "<m>const <type>char</type>* const* <name>ppEnabledLayerNames</name></m>",
        ))
        .unwrap();
        assert_eq!(n, "ppEnabledLayerNames");
        assert!(t.base_const);
        assert_eq!(t.pointers, vec![true, false]);
        assert_eq!(t.to_c(), "const char* const*");
    }

    #[test]
    fn arrays_and_bitfields() {
        let (_, t) =
            parse_decl(&toks("<m><type>float</type> <name>matrix</name>[3][4]</m>")).unwrap();
        assert_eq!(t.array, vec![ArrayLen::Literal(3), ArrayLen::Literal(4)]);
        let (_, t) = parse_decl(&toks(
            "<m><type>char</type> <name>deviceName</name>[<enum>VK_MAX_PHYSICAL_DEVICE_NAME_SIZE</enum>]</m>",
        ))
        .unwrap();
        assert_eq!(
            t.array,
            vec![ArrayLen::Constant(
                "VK_MAX_PHYSICAL_DEVICE_NAME_SIZE".into()
            )]
        );
        let (_, t) =
            parse_decl(&toks("<m><type>uint32_t</type> <name>mask</name>:24</m>")).unwrap();
        assert_eq!(t.bitfield, Some(24));
    }

    #[test]
    fn old_funcpointer() {
        let (n, r, p) = parse_old_funcpointer(&toks(
            "<t>typedef void* (VKAPI_PTR *<name>PFN_vkAllocationFunction</name>)(\n <type>void</type>* pUserData,\n <type>size_t</type> size);</t>",
        ))
        .unwrap();
        assert_eq!(n, "PFN_vkAllocationFunction");
        assert_eq!(r.to_c(), "void*");
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].name, "pUserData");
        assert_eq!(p[1].ty.base, "size_t");
        let (_, _, p) = parse_old_funcpointer(&toks(
            "<t>typedef void (VKAPI_PTR *<name>PFN_vkVoidFunction</name>)(void);</t>",
        ))
        .unwrap();
        assert!(p.is_empty());
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(parse_decl(&toks("<m>[</m>")).is_err());
        assert!(parse_decl(&toks("<m><type>int</type>[x</m>")).is_err());
        assert!(parse_old_funcpointer(&toks("<t>typedef void</t>")).is_err());
    }
}
