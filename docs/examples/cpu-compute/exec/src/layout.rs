//! SPIR-V types, their register counts and their byte layouts in memory.
//!
//! Why layouts are separate from types: a matrix's MatrixStride/RowMajor is a decoration of the
//! struct member holding it, so the same matrix type has several memory shapes; an access chain
//! walks `Layout`s (not types) to know each step's byte stride. Types without explicit layout
//! decorations (function, private, workgroup variables) are packed: the executor alone reads
//! that memory and every access is unaligned-safe.

use crate::ir::Flat;
use crate::Refusal;
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    Bool,
    Int(u8),
    Float(u8),
}

impl Scalar {
    pub fn width(self) -> u8 {
        match self {
            Scalar::Bool => 1,
            Scalar::Int(w) | Scalar::Float(w) => w,
        }
    }
    /// Bytes in memory; booleans take 4 (only non-external memory can hold them).
    pub fn bytes(self) -> u8 {
        match self {
            Scalar::Bool => 4,
            Scalar::Int(w) | Scalar::Float(w) => w / 8,
        }
    }
}

#[derive(Clone, Debug)]
pub enum Ty {
    Void,
    Scalar(Scalar),
    Vector(Scalar, u32),
    Matrix {
        col: u32,
        cols: u32,
    },
    Array {
        elem: u32,
        len: u32,
    },
    RuntimeArray {
        elem: u32,
    },
    Struct(Vec<u32>),
    Pointer {
        class: spirv::StorageClass,
        pointee: u32,
    },
    Function,
}

#[derive(Clone, Debug)]
pub enum Layout {
    Scalar(Scalar),
    Vector {
        s: Scalar,
        n: u32,
        stride: u32,
    },
    /// Element (col c, row r) at c*col_step + r*row_step.
    Matrix {
        s: Scalar,
        cols: u32,
        rows: u32,
        col_step: u32,
        row_step: u32,
    },
    Array {
        elem: usize,
        len: Option<u32>,
        stride: u32,
    },
    Struct(Vec<(u32, usize)>),
}

/// Layout decorations collected before the types: (id or (struct, member)) -> value.
#[derive(Default)]
pub struct LayoutDecor {
    pub offset: HashMap<(u32, u32), u32>,
    pub matrix_stride: HashMap<(u32, u32), u32>,
    pub row_major: HashMap<(u32, u32), bool>,
    pub array_stride: HashMap<u32, u32>,
}

#[derive(Default)]
pub struct Layouts {
    pub nodes: Vec<Layout>,
    cache: HashMap<(u32, u32, bool), usize>,
}

fn bad(what: &str) -> Refusal {
    Refusal::Malformed(what.to_string())
}

pub fn ty(types: &HashMap<u32, Ty>, id: u32) -> Result<&Ty, Refusal> {
    types
        .get(&id)
        .ok_or_else(|| Refusal::Malformed(format!("%{id} is not a type")))
}

/// Registers a value of type `id` occupies.
pub fn reg_count(types: &HashMap<u32, Ty>, id: u32, depth: u32) -> Result<u32, Refusal> {
    if depth > 64 {
        return Err(bad("type nesting too deep"));
    }
    let n = match ty(types, id)? {
        Ty::Void | Ty::Function => 0,
        Ty::Scalar(_) | Ty::Pointer { .. } => 1,
        Ty::Vector(_, n) => *n,
        Ty::Matrix { col, cols } => reg_count(types, *col, depth + 1)?.saturating_mul(*cols),
        Ty::Array { elem, len } => reg_count(types, *elem, depth + 1)?.saturating_mul(*len),
        Ty::RuntimeArray { .. } => {
            return Err(Refusal::Unsupported("a runtime array as a value".into()))
        }
        Ty::Struct(m) => {
            let mut t = 0u32;
            for &m in m {
                t = t.saturating_add(reg_count(types, m, depth + 1)?);
            }
            t
        }
    };
    if n > 1 << 20 {
        return Err(Refusal::Unsupported(
            "a value of more than 2^20 scalars".into(),
        ));
    }
    Ok(n)
}

/// The scalar type and component count of a scalar or vector type.
pub fn scalar_of(types: &HashMap<u32, Ty>, id: u32) -> Result<(Scalar, u32), Refusal> {
    match ty(types, id)? {
        Ty::Scalar(s) => Ok((*s, 1)),
        Ty::Vector(s, n) => Ok((*s, *n)),
        Ty::Matrix { col, cols } => {
            let (s, rows) = scalar_of(types, *col)?;
            Ok((s, rows * cols))
        }
        t => Err(Refusal::Malformed(format!(
            "expected a scalar or vector type, found {t:?}"
        ))),
    }
}

impl Layouts {
    pub fn size(&self, l: usize) -> u32 {
        match &self.nodes[l] {
            Layout::Scalar(s) => s.bytes() as u32,
            Layout::Vector { s, n, stride } => (n - 1)
                .saturating_mul(*stride)
                .saturating_add(s.bytes() as u32),
            Layout::Matrix {
                s,
                cols,
                rows,
                col_step,
                row_step,
            } => (cols - 1)
                .saturating_mul(*col_step)
                .saturating_add((rows - 1).saturating_mul(*row_step))
                .saturating_add(s.bytes() as u32),
            Layout::Array { len, stride, .. } => len.unwrap_or(0).saturating_mul(*stride),
            Layout::Struct(m) => m
                .iter()
                .map(|&(o, l)| o.saturating_add(self.size(l)))
                .max()
                .unwrap_or(0),
        }
    }

    /// The layout of type `id`; `mat` is the (MatrixStride, RowMajor) of the member holding it.
    pub fn of(
        &mut self,
        types: &HashMap<u32, Ty>,
        dec: &LayoutDecor,
        id: u32,
        mat: Option<(u32, bool)>,
        depth: u32,
    ) -> Result<usize, Refusal> {
        let key = (id, mat.map_or(u32::MAX, |m| m.0), mat.is_some_and(|m| m.1));
        if let Some(&l) = self.cache.get(&key) {
            return Ok(l);
        }
        if depth > 64 {
            return Err(bad("type nesting too deep"));
        }
        let node = match ty(types, id)? {
            Ty::Scalar(s) => Layout::Scalar(*s),
            // A device address stored in memory (bufferDeviceAddress).
            Ty::Pointer {
                class: spirv::StorageClass::PhysicalStorageBuffer,
                ..
            } => Layout::Scalar(Scalar::Int(64)),
            Ty::Vector(s, n) => Layout::Vector {
                s: *s,
                n: *n,
                stride: s.bytes() as u32,
            },
            Ty::Matrix { col, cols } => {
                let (s, rows) = scalar_of(types, *col)?;
                let sz = s.bytes() as u32;
                let (stride, row_major) = mat.unwrap_or((rows * sz, false));
                let (col_step, row_step) = if row_major {
                    (sz, stride)
                } else {
                    (stride, sz)
                };
                Layout::Matrix {
                    s,
                    cols: *cols,
                    rows,
                    col_step,
                    row_step,
                }
            }
            Ty::Array { elem, len } => self.array(types, dec, id, *elem, Some(*len), mat, depth)?,
            Ty::RuntimeArray { elem } => self.array(types, dec, id, *elem, None, mat, depth)?,
            Ty::Struct(members) => {
                let mut out = Vec::with_capacity(members.len());
                let mut packed = 0u32;
                for (i, &m) in members.iter().enumerate() {
                    let k = (id, i as u32);
                    let mm = dec
                        .matrix_stride
                        .get(&k)
                        .map(|&s| (s, dec.row_major.get(&k).copied().unwrap_or(false)));
                    let l = self.of(types, dec, m, mm, depth + 1)?;
                    let off = dec.offset.get(&k).copied().unwrap_or(packed);
                    packed = off.saturating_add(self.size(l));
                    out.push((off, l));
                }
                Layout::Struct(out)
            }
            t => return Err(Refusal::Unsupported(format!("{t:?} in memory"))),
        };
        self.nodes.push(node);
        let l = self.nodes.len() - 1;
        self.cache.insert(key, l);
        Ok(l)
    }

    #[allow(clippy::too_many_arguments)]
    fn array(
        &mut self,
        types: &HashMap<u32, Ty>,
        dec: &LayoutDecor,
        id: u32,
        elem: u32,
        len: Option<u32>,
        mat: Option<(u32, bool)>,
        depth: u32,
    ) -> Result<Layout, Refusal> {
        let e = self.of(types, dec, elem, mat, depth + 1)?;
        let stride = dec
            .array_stride
            .get(&id)
            .copied()
            .unwrap_or_else(|| self.size(e));
        Ok(Layout::Array {
            elem: e,
            len,
            stride,
        })
    }

    /// The scalars of a whole value of layout `l`, in register order.
    pub fn flatten(&self, l: usize, base: u32, out: &mut Vec<Flat>) -> Result<(), Refusal> {
        if out.len() > 1 << 20 {
            return Err(Refusal::Unsupported(
                "a load or store of more than 2^20 scalars".into(),
            ));
        }
        let sc = |s: Scalar, off: u32| Flat {
            off,
            size: s.bytes(),
            boolean: s == Scalar::Bool,
        };
        match &self.nodes[l] {
            Layout::Scalar(s) => out.push(sc(*s, base)),
            Layout::Vector { s, n, stride } => {
                out.extend((0..*n).map(|i| sc(*s, base.saturating_add(i.saturating_mul(*stride)))))
            }
            Layout::Matrix {
                s,
                cols,
                rows,
                col_step,
                row_step,
            } => {
                for c in 0..*cols {
                    out.extend((0..*rows).map(|r| {
                        let o = c
                            .saturating_mul(*col_step)
                            .saturating_add(r.saturating_mul(*row_step));
                        sc(*s, base.saturating_add(o))
                    }));
                }
            }
            Layout::Array { elem, len, stride } => {
                let len = len
                    .ok_or_else(|| Refusal::Unsupported("loading a whole runtime array".into()))?;
                for i in 0..len {
                    self.flatten(*elem, base.saturating_add(i.saturating_mul(*stride)), out)?;
                }
            }
            Layout::Struct(m) => {
                for &(o, ml) in m {
                    self.flatten(ml, base.saturating_add(o), out)?;
                }
            }
        }
        Ok(())
    }
}
