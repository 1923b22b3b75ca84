//! Result files written from the core, so writing a results directory costs neither a
//! DataFrame library nor an Arrow runtime in the caller: the latency CDF as CSV
//! ([`RunReport::latency_cdf_csv`]) and the timeline as Parquet
//! ([`RunReport::write_timeline_parquet`]). Their bytes and schema are the ones the Python
//! front wrote before (Python's `csv` module and `repr` of floats; pyarrow's schema).

use super::{Column, RunReport};
use crate::workload::Op;
use base64::Engine as _;
use flatbuffers::{FlatBufferBuilder, WIPOffset};
use parquet::basic::{Compression, Repetition, Type as PhysicalType};
use parquet::data_type::DoubleType;
use parquet::errors::ParquetError;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use std::fmt::Write as _;
use std::io;
use std::sync::Arc;

impl RunReport {
    /// `latency_cdf.csv`: header `op,latency_ns,cumulative`, then one row per recorded bucket
    /// of reads, writes, reads during GC and writes during GC (`read_during_gc`,
    /// `write_during_gc`), in that order; `cumulative` as Python's `repr` writes the float.
    pub fn latency_cdf_csv(&self) -> String {
        let mut out = String::from("op,latency_ns,cumulative\n");
        for during_gc in [false, true] {
            for (op, name) in [(Op::Read, "read"), (Op::Write, "write")] {
                let cdf = if during_gc {
                    self.latency_cdf_during_gc(op)
                } else {
                    self.latency_cdf(op)
                };
                let suffix = if during_gc { "_during_gc" } else { "" };
                for (ns, cum) in cdf {
                    let _ = writeln!(out, "{name}{suffix},{ns},{}", py_float_repr(cum));
                }
            }
        }
        out
    }

    /// The timeline as Parquet (`timeline.parquet`), the schema pyarrow gave it: one nullable
    /// `double` column per [`Column`] (NaN where undefined, never null), each with field
    /// metadata `unit` and `description`, and schema metadata `flashpress.units` (a JSON object
    /// of column -> unit, as Python's `json.dumps` writes it), carried both as Parquet
    /// key-value metadata and in the Arrow schema (`ARROW:schema`) that Arrow readers take
    /// field metadata from. One row group, Snappy, dictionary encoding with PLAIN fallback,
    /// chunk statistics. Flushes `out` (pass `&mut file` to keep the file).
    pub fn write_timeline_parquet<W: io::Write + Send>(&self, out: W) -> io::Result<()> {
        write_parquet(&self.timeline, out).map_err(|e| match e {
            ParquetError::External(inner) => match inner.downcast::<io::Error>() {
                Ok(io) => *io,
                Err(other) => io::Error::other(other),
            },
            other => io::Error::other(other),
        })
    }
}

fn write_parquet<W: io::Write + Send>(columns: &[Column], out: W) -> parquet::errors::Result<()> {
    let units = py_json_object(columns.iter().map(|c| (c.name, c.unit)));
    let fields = columns
        .iter()
        .map(|c| {
            Type::primitive_type_builder(c.name, PhysicalType::DOUBLE)
                .with_repetition(Repetition::OPTIONAL)
                .build()
                .map(Arc::new)
        })
        .collect::<parquet::errors::Result<Vec<_>>>()?;
    let schema = Type::group_type_builder("schema")
        .with_fields(fields)
        .build()?;
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_statistics_enabled(EnabledStatistics::Chunk)
        .set_key_value_metadata(Some(vec![
            KeyValue::new(
                "ARROW:schema".to_string(),
                arrow_schema_base64(columns, &units),
            ),
            KeyValue::new("flashpress.units".to_string(), units),
        ]))
        .build();
    let mut writer = SerializedFileWriter::new(out, Arc::new(schema), Arc::new(props))?;
    let rows = columns.first().map_or(0, |c| c.values.len());
    let defined = vec![1i16; rows]; // no nulls: an undefined value is NaN
    let mut group = writer.next_row_group()?;
    for c in columns {
        let mut col = group.next_column()?.expect("one writer per schema column");
        col.typed::<DoubleType>()
            .write_batch(&c.values, Some(&defined), None)?;
        col.close()?;
    }
    group.close()?;
    writer.close()?;
    Ok(())
}

/// The Arrow IPC schema message of the timeline, base64 as Arrow writers store it in Parquet's
/// `ARROW:schema` key: continuation marker, metadata length, the `Message` flatbuffer (padded
/// to 8 bytes). Laid out from Arrow's `Schema.fbs` and `Message.fbs`: vtable slot of field id
/// `i` is `4 + 2i`.
fn arrow_schema_base64(columns: &[Column], units_json: &str) -> String {
    const METADATA_V5: i16 = 4;
    const HEADER_SCHEMA: u8 = 1;
    const TYPE_FLOATING_POINT: u8 = 3;
    const PRECISION_DOUBLE: i16 = 2;

    let mut fbb = FlatBufferBuilder::new();
    let mut fields = Vec::with_capacity(columns.len());
    for c in columns {
        let name = fbb.create_string(c.name);
        let meta = [
            key_value(&mut fbb, "unit", c.unit),
            key_value(&mut fbb, "description", c.description),
        ];
        let meta = fbb.create_vector(&meta);
        let children = fbb.create_vector::<WIPOffset<flatbuffers::TableFinishedWIPOffset>>(&[]);
        let t = fbb.start_table(); // FloatingPoint
        fbb.push_slot::<i16>(4, PRECISION_DOUBLE, 0);
        let float_type = fbb.end_table(t);
        let t = fbb.start_table(); // Field
        fbb.push_slot_always(4, name);
        fbb.push_slot::<bool>(6, true, false); // nullable, as pyarrow's fields
        fbb.push_slot::<u8>(8, TYPE_FLOATING_POINT, 0);
        fbb.push_slot_always(10, float_type);
        fbb.push_slot_always(14, children);
        fbb.push_slot_always(16, meta);
        fields.push(fbb.end_table(t));
    }
    let fields = fbb.create_vector(&fields);
    let schema_meta = [key_value(&mut fbb, "flashpress.units", units_json)];
    let schema_meta = fbb.create_vector(&schema_meta);
    let t = fbb.start_table(); // Schema (endianness: Little, the default)
    fbb.push_slot_always(6, fields);
    fbb.push_slot_always(8, schema_meta);
    let schema = fbb.end_table(t);
    let t = fbb.start_table(); // Message
    fbb.push_slot::<i16>(4, METADATA_V5, 0);
    fbb.push_slot::<u8>(6, HEADER_SCHEMA, 0);
    fbb.push_slot_always(8, schema);
    let message = fbb.end_table(t);
    fbb.finish(message, None);

    let data = fbb.finished_data();
    let padded = data.len().next_multiple_of(8);
    let mut ipc = Vec::with_capacity(8 + padded);
    ipc.extend_from_slice(&[0xff; 4]);
    ipc.extend_from_slice(&(padded as u32).to_le_bytes());
    ipc.extend_from_slice(data);
    ipc.resize(8 + padded, 0);
    base64::engine::general_purpose::STANDARD.encode(ipc)
}

fn key_value<'a>(
    fbb: &mut FlatBufferBuilder<'a>,
    key: &str,
    value: &str,
) -> WIPOffset<flatbuffers::TableFinishedWIPOffset> {
    let k = fbb.create_string(key);
    let v = fbb.create_string(value);
    let t = fbb.start_table();
    fbb.push_slot_always(4, k);
    fbb.push_slot_always(6, v);
    fbb.end_table(t)
}

/// A JSON object of strings as Python's `json.dumps` writes it by default: `", "` and `": "`
/// separators, and every character outside printable ASCII escaped (`\u00b0` for `°`).
fn py_json_object<'a>(pairs: impl Iterator<Item = (&'a str, &'a str)>) -> String {
    let mut out = String::from("{");
    for (i, (k, v)) in pairs.enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        py_json_string(&mut out, k);
        out.push_str(": ");
        py_json_string(&mut out, v);
    }
    out.push('}');
    out
}

fn py_json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{u:04x}");
                }
            }
        }
    }
    out.push('"');
}

/// `x` as Python's `repr(float)` writes it: the shortest digits that read back as `x`, in
/// fixed notation (with `.0` when integral) for decimal exponents -4 to 15, else scientific
/// with a signed exponent of at least two digits (`1e-05`, `1.5e+16`); `nan`, `inf`, `-inf`.
pub fn py_float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if x.is_infinite() {
        return format!("{sign}inf");
    }
    // Rust's `{:e}` is also the shortest round-trip digit string (nearest on ties, as
    // CPython's dtoa mode 0), e.g. "1.2345e-7".
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').expect("{:e} has an exponent");
    let exp: i32 = exp.parse().expect("{:e} exponent is an integer");
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    // CPython's float_repr_style 'short': scientific when the decimal point position
    // (exp + 1) is below -3 or above 16.
    if !(-4..16).contains(&exp) {
        let exp_sign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{mantissa}e{exp_sign}{:02}", exp.abs());
    }
    let point = exp + 1; // digits before the decimal point (<= 0: zeros after it)
    let n = digits.len() as i32;
    if point <= 0 {
        format!("{sign}0.{}{digits}", "0".repeat((-point) as usize))
    } else if point < n {
        let (int, frac) = digits.split_at(point as usize);
        format!("{sign}{int}.{frac}")
    } else {
        format!("{sign}{digits}{}.0", "0".repeat((point - n) as usize))
    }
}

#[cfg(test)]
mod tests {
    use super::{py_float_repr, py_json_object, write_parquet};
    use crate::stats::Column;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::Field;
    use proptest::prelude::*;

    #[test]
    fn units_json_as_python_json_dumps() {
        // json.dumps({...}) as CPython 3.11 printed it.
        let pairs = [
            ("time_s", "s"),
            ("t", "\u{b0}C"),
            ("q", "a\"b\\c"),
            ("n", "x\ny\tz\u{1}\u{7f}"),
            ("e", "\u{1f600}"),
        ];
        assert_eq!(
            py_json_object(pairs.into_iter()),
            r#"{"time_s": "s", "t": "\u00b0C", "q": "a\"b\\c", "n": "x\ny\tz\u0001\u007f", "e": "\ud83d\ude00"}"#
        );
    }

    #[test]
    fn parquet_reads_back_row_for_row() {
        let col = |name, values: Vec<f64>| Column {
            name,
            unit: "s",
            description: "d",
            values,
        };
        let cols = [
            col("a", vec![1.0, 2.5, -0.0]),
            col("b", vec![f64::NAN, 3.0, 3.0]),
        ];
        let mut file = tempfile::tempfile().unwrap();
        write_parquet(&cols, &mut file).unwrap();
        let reader = SerializedFileReader::new(file).unwrap();
        let meta = reader.metadata().file_metadata();
        assert_eq!(meta.num_rows(), 3);
        let kv = meta.key_value_metadata().unwrap();
        let units = kv.iter().find(|k| k.key == "flashpress.units").unwrap();
        assert_eq!(units.value.as_deref(), Some(r#"{"a": "s", "b": "s"}"#));
        assert!(kv.iter().any(|k| k.key == "ARROW:schema"));
        let rows: Vec<Vec<u64>> = reader
            .get_row_iter(None)
            .unwrap()
            .map(|row| {
                row.unwrap()
                    .get_column_iter()
                    .map(|(_, f)| match f {
                        Field::Double(v) => v.to_bits(),
                        other => panic!("not a double: {other:?}"),
                    })
                    .collect()
            })
            .collect();
        let want: Vec<Vec<u64>> = (0..3)
            .map(|r| cols.iter().map(|c| c.values[r].to_bits()).collect())
            .collect();
        assert_eq!(rows, want);
    }

    /// (value, `repr(value)` as CPython 3.11 printed it).
    const CPYTHON: &[(f64, &str)] = &[
        (0.0, "0.0"),
        (-0.0, "-0.0"),
        (1.0, "1.0"),
        (0.5, "0.5"),
        (0.1, "0.1"),
        (1.0 / 3.0, "0.3333333333333333"),
        (2.0 / 3.0, "0.6666666666666666"),
        (1e-4, "0.0001"),
        (1.5e-4, "0.00015"),
        (9.99e-5, "9.99e-05"),
        (1e-5, "1e-05"),
        (1.2345e-7, "1.2345e-07"),
        (1.0 / 16384.0, "6.103515625e-05"),
        (1e-6, "1e-06"),
        (0.810447, "0.810447"),
        (1e15, "1000000000000000.0"),
        (1e16, "1e+16"),
        (1.5e16, "1.5e+16"),
        (123456789012345680.0, "1.2345678901234568e+17"),
        (1e22, "1e+22"),
        (5e-324, "5e-324"),
        (f64::MAX, "1.7976931348623157e+308"),
        (2.5, "2.5"),
        (100.0, "100.0"),
        (0.000123, "0.000123"),
        (-1e-5, "-1e-05"),
        (-2.5, "-2.5"),
        (0.30000000000000004, "0.30000000000000004"),
        (999999999999999.9, "999999999999999.9"),
        (9999999999999998.0, "9999999999999998.0"),
        (f64::INFINITY, "inf"),
        (f64::NEG_INFINITY, "-inf"),
        (f64::NAN, "nan"),
    ];

    #[test]
    fn matches_cpython_repr() {
        for &(x, want) in CPYTHON {
            assert_eq!(py_float_repr(x), want, "{x:e}");
        }
    }

    proptest! {
        /// Whatever the value, the text reads back as the same float (Python's repr promise).
        #[test]
        fn round_trips(bits in any::<u64>()) {
            let x = f64::from_bits(bits);
            prop_assume!(x.is_finite());
            let back: f64 = py_float_repr(x).parse().unwrap();
            prop_assert_eq!(back.to_bits(), x.to_bits());
        }
    }
}
