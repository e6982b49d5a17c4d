//! `cargo xtask gen-sample`: a realistic, deterministic GEDCOM 5.5.1 UTF-8 file of a requested size.
//!
//! The file has a full header (`SOUR`, `GEDC`, `CHAR UTF-8`, …), a submitter, then individuals grouped in
//! families (names with given name and surname, some of them non-ASCII; sex; birth, christening, death and
//! burial with dates and places; `FAMC`/`FAMS` pointers; source citations; residences with `@@` in e-mail
//! addresses; `_UID` custom tags; notes with `CONC` and `CONT` lines), the `FAM` records, the `SOUR` records,
//! and `0 TRLR`. Pointers are consistent: every `FAMS`/`FAMC` names a family that lists the individual back.

use crate::Args;
use std::path::Path;
use std::process::ExitCode;

/// Bump when the generator's output changes, so cached bench samples are regenerated.
pub const GENERATOR_VERSION: u32 = 1;

/// The default seed.
pub const DEFAULT_SEED: u64 = 0x9E37_79B9_7F4A_7C15;

pub fn run(rest: &[String]) -> Result<ExitCode, String> {
    let mut args = Args::new(rest);
    let size_mb: f64 = args.parsed("--size-mb", 10.0)?;
    let out = args.value("--out")?.ok_or("gen-sample needs --out PATH")?;
    let crlf = args.flag("--crlf");
    let seed: u64 = args.parsed("--seed", DEFAULT_SEED)?;
    args.finish()?;
    let target = mb_to_octets(size_mb)?;
    let octets = generate(target, crlf, seed);
    write_file(Path::new(&out), &octets)?;
    eprintln!("wrote {} octets to {out}", octets.len());
    Ok(ExitCode::SUCCESS)
}

pub fn mb_to_octets(size_mb: f64) -> Result<usize, String> {
    if !(size_mb.is_finite() && size_mb > 0.0 && size_mb <= 100_000.0) {
        return Err(format!(
            "--size-mb must be between 0 and 100000, not {size_mb}"
        ));
    }
    Ok((size_mb * 1e6) as usize)
}

pub fn write_file(path: &Path, octets: &[u8]) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    // Write to a temporary name first so an interrupted run never leaves a truncated cached sample.
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, octets).map_err(|e| format!("{}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("{}: {e}", path.display()))
}

/// A xorshift64* generator: tiny, fast, deterministic.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (n > 0).
    fn below(&mut self, n: usize) -> usize {
        (((self.next() >> 32) * n as u64) >> 32) as usize
    }

    /// A number in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `percent` / 100.
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

const MALE: &[&str] = &[
    "John",
    "William",
    "James",
    "George",
    "Charles",
    "Thomas",
    "Henry",
    "Joseph",
    "Robert",
    "Edward",
    "Frederick",
    "Albert",
    "Arthur",
    "Walter",
    "Samuel",
    "Johann",
    "Heinrich",
    "Friedrich",
    "Karl",
    "Wilhelm",
    "Pierre",
    "Jean",
    "François",
    "José",
    "Juan",
    "Antonio",
    "Giovanni",
    "Łukasz",
    "Stanisław",
    "Jan",
    "Piotr",
    "Søren",
    "Bjørn",
    "Dmitrij",
    "Дмитрий",
    "Иван",
    "Николай",
    "Jiří",
    "Ødegaard",
    "Mihály",
    "Björn",
    "Ólafur",
    "Çelik",
    "Nguyễn Văn",
];

const FEMALE: &[&str] = &[
    "Mary",
    "Elizabeth",
    "Sarah",
    "Ann",
    "Margaret",
    "Jane",
    "Catherine",
    "Emma",
    "Alice",
    "Martha",
    "Eliza",
    "Maria",
    "Anna",
    "Katharina",
    "Margaretha",
    "Zoë",
    "Chloë",
    "Renée",
    "Hélène",
    "Françoise",
    "María José",
    "Dolores",
    "Inés",
    "Małgorzata",
    "Zofia",
    "Agnieszka",
    "Åse",
    "Ingrid",
    "Sigrún",
    "Анна",
    "Мария",
    "Ольга",
    "Eva",
    "Božena",
    "Erzsébet",
    "Ærlig",
    "Þóra",
    "Ayşe",
    "Thị Hoa",
];

const SURNAMES: &[&str] = &[
    "Smith",
    "Jones",
    "Williams",
    "Brown",
    "Taylor",
    "Davies",
    "Wilson",
    "Evans",
    "Thomas",
    "Johnson",
    "Roberts",
    "Walker",
    "Wright",
    "Robinson",
    "Thompson",
    "White",
    "Hughes",
    "Edwards",
    "Green",
    "Hall",
    "Wood",
    "Harris",
    "Müller",
    "Schmidt",
    "Schneider",
    "Fischer",
    "Weiß",
    "Böhm",
    "Martin",
    "Bernard",
    "Dubois",
    "Lefèvre",
    "García",
    "Fernández",
    "López",
    "Núñez",
    "Rossi",
    "Russo",
    "Kowalski",
    "Wiśniewski",
    "Wójcik",
    "Łukaszewicz",
    "Ærø",
    "Sørensen",
    "Jørgensen",
    "Ødegård",
    "Åberg",
    "Иванов",
    "Петров",
    "Смирнов",
    "Novák",
    "Dvořák",
    "Nagy",
    "Kovács",
    "Jónsson",
    "Yılmaz",
    "Nguyễn",
    "O'Brien",
    "MacDonald",
    "van der Berg",
    "de la Cruz",
];

const PLACES: &[&str] = &[
    "Springfield, Sangamon, Illinois, USA",
    "Boston, Suffolk, Massachusetts, USA",
    "Philadelphia, Philadelphia, Pennsylvania, USA",
    "Leeds, Yorkshire, England",
    "St Giles, Cripplegate, London, England",
    "Cork, County Cork, Ireland",
    "Glasgow, Lanarkshire, Scotland",
    "München, Bayern, Deutschland",
    "Köln, Nordrhein-Westfalen, Deutschland",
    "Zürich, Zürich, Schweiz",
    "Paris, Île-de-France, France",
    "Besançon, Doubs, Franche-Comté, France",
    "Sevilla, Andalucía, España",
    "A Coruña, Galicia, España",
    "Łódź, łódzkie, Polska",
    "Kraków, małopolskie, Polska",
    "København, Hovedstaden, Danmark",
    "Ærøskøbing, Ærø, Danmark",
    "Göteborg, Västra Götaland, Sverige",
    "Reykjavík, Ísland",
    "Москва, Россия",
    "Санкт-Петербург, Россия",
    "Praha, Česko",
    "Brno, Jihomoravský kraj, Česko",
    "Budapest, Magyarország",
    "İstanbul, Türkiye",
    "Hà Nội, Việt Nam",
    "Ballarat, Victoria, Australia",
    "Québec, Québec, Canada",
];

const MONTHS: &[&str] = &[
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
];

const OCCUPATIONS: &[&str] = &[
    "Farmer",
    "Agricultural labourer",
    "Blacksmith",
    "Carpenter",
    "Weaver",
    "Coal miner",
    "Schoolteacher",
    "Dressmaker",
    "Domestic servant",
    "Shoemaker",
    "Tailor",
    "Merchant",
    "Clerk",
    "Mariner",
    "Innkeeper",
    "Bäcker",
    "Müller",
    "Tischler",
    "Cordonnier",
    "Rolnik",
];

const WORDS: &[&str] = &[
    "the",
    "of",
    "and",
    "in",
    "to",
    "was",
    "he",
    "she",
    "his",
    "her",
    "family",
    "born",
    "married",
    "died",
    "church",
    "parish",
    "register",
    "records",
    "according",
    "census",
    "lived",
    "farm",
    "village",
    "children",
    "father",
    "mother",
    "brother",
    "sister",
    "emigrated",
    "arrived",
    "ship",
    "port",
    "worked",
    "years",
    "later",
    "moved",
    "with",
    "their",
    "buried",
    "cemetery",
    "witnesses",
    "baptism",
    "recorded",
    "spelling",
    "varies",
    "between",
    "sources",
    "transcription",
    "original",
    "entry",
    "illegible",
    "probably",
    "daughter",
    "son",
    "widow",
    "inherited",
    "land",
    "will",
    "probate",
    "letter",
    "from",
    "cousin",
    "mentions",
    "Müller",
    "Zoë",
    "José",
    "Łódź",
    "København",
    "1851",
    "1861",
    "1871",
    "1881",
    "page",
    "folio",
    "microfilm",
    "see",
    "also",
    "note",
];

const REPOSITORIES: &[&str] = &[
    "General Register Office",
    "The National Archives, Kew",
    "Family History Library, Salt Lake City",
    "Archiwum Państwowe w Łodzi",
    "Rigsarkivet, København",
    "Bayerisches Hauptstaatsarchiv, München",
];

const SOURCE_TITLES: &[&str] = &[
    "Parish register of St Mary",
    "Census of England and Wales",
    "Kirchenbuch der evangelischen Gemeinde",
    "Registres paroissiaux et état civil",
    "Księgi metrykalne parafii rzymskokatolickiej",
    "Kirkebog for sognet",
    "Passenger lists of vessels arriving at New York",
    "Метрические книги православной церкви",
    "Civil registration index of births, marriages and deaths",
];

/// Writes GEDCOM lines with a chosen line break.
struct Out {
    buf: Vec<u8>,
    eol: &'static [u8],
}

impl Out {
    fn new(capacity: usize, eol: &'static [u8]) -> Self {
        Out {
            buf: Vec::with_capacity(capacity),
            eol,
        }
    }

    fn line(&mut self, level: u8, xref: Option<(char, usize)>, tag: &str, payload: &str) {
        self.buf.push(b'0' + level);
        self.buf.push(b' ');
        if let Some((prefix, n)) = xref {
            self.pointer(prefix, n);
            self.buf.push(b' ');
        }
        self.buf.extend_from_slice(tag.as_bytes());
        if !payload.is_empty() {
            self.buf.push(b' ');
            self.buf.extend_from_slice(payload.as_bytes());
        }
        self.buf.extend_from_slice(self.eol);
    }

    fn pointer_line(&mut self, level: u8, tag: &str, prefix: char, n: usize) {
        self.buf.push(b'0' + level);
        self.buf.push(b' ');
        self.buf.extend_from_slice(tag.as_bytes());
        self.buf.push(b' ');
        self.pointer(prefix, n);
        self.buf.extend_from_slice(self.eol);
    }

    fn pointer(&mut self, prefix: char, n: usize) {
        self.buf.push(b'@');
        self.buf.push(prefix as u8);
        self.buf.extend_from_slice(n.to_string().as_bytes());
        self.buf.push(b'@');
    }

    /// A long text as a first line plus `CONC` (split mid-word, as many programs do) and `CONT` (paragraphs).
    fn long_text(&mut self, level: u8, tag: &str, paragraphs: &[String], width: usize) {
        let mut first = true;
        for paragraph in paragraphs {
            let mut rest = paragraph.as_str();
            let mut first_of_paragraph = true;
            loop {
                let cut = conc_cut(rest, width);
                let (piece, tail) = rest.split_at(cut);
                let (lvl, t) = match (first, first_of_paragraph) {
                    (true, _) => (level, tag),
                    (false, true) => (level + 1, "CONT"),
                    (false, false) => (level + 1, "CONC"),
                };
                self.line(lvl, None, t, piece);
                first = false;
                first_of_paragraph = false;
                rest = tail;
                if rest.is_empty() {
                    break;
                }
            }
        }
    }
}

/// Where to cut a `CONC` piece: at most `max` octets, on a character boundary, and never next to a space (a
/// space at either end of a `CONC` piece is lost by many programs, so writers avoid it).
fn conc_cut(s: &str, max: usize) -> usize {
    let cut = floor_char_boundary(s, max);
    if cut == s.len() {
        return cut;
    }
    let bytes = s.as_bytes();
    let mut i = cut;
    while i > 1 && (bytes[i - 1] == b' ' || bytes[i] == b' ' || !s.is_char_boundary(i)) {
        i -= 1;
    }
    if i > 1 {
        i
    } else {
        cut
    }
}

/// The largest char boundary of `s` at or below `max` (but at least one character).
fn floor_char_boundary(s: &str, max: usize) -> usize {
    if s.len() <= max {
        return s.len();
    }
    let mut i = max;
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    if i == 0 {
        s.char_indices().nth(1).map_or(s.len(), |(i, _)| i)
    } else {
        i
    }
}

fn date(rng: &mut Rng, year: usize) -> String {
    let day = rng.range(1, 28);
    let month = rng.pick(MONTHS);
    match rng.below(20) {
        0 => format!("ABT {year}"),
        1 => format!("BEF {day} {month} {year}"),
        2 => format!("AFT {year}"),
        3 => format!("BET {year} AND {}", year + rng.range(1, 5)),
        4 => format!("{month} {year}"),
        5 => format!("EST {year}"),
        _ => format!("{day} {month} {year}"),
    }
}

fn sentence(rng: &mut Rng, words: usize) -> String {
    let mut s = String::new();
    for i in 0..words {
        if i > 0 {
            s.push(' ');
        }
        let w = rng.pick(WORDS);
        if i == 0 {
            let mut chars = w.chars();
            if let Some(c) = chars.next() {
                s.extend(c.to_uppercase());
                s.push_str(chars.as_str());
            }
        } else {
            s.push_str(w);
        }
    }
    s.push('.');
    s
}

fn paragraphs(rng: &mut Rng) -> Vec<String> {
    let n = if rng.chance(60) { 1 } else { rng.range(2, 4) };
    (0..n)
        .map(|_| {
            let sentences = rng.range(1, 8);
            (0..sentences)
                .map(|_| {
                    let words = rng.range(6, 24);
                    sentence(rng, words)
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

fn uid(rng: &mut Rng) -> String {
    format!("{:016X}{:016X}", rng.next(), rng.next())
}

fn email_name(given: &str, surname: &str) -> String {
    let clean = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    let (g, s) = (clean(given), clean(surname));
    match (g.is_empty(), s.is_empty()) {
        (false, false) => format!("{g}.{s}"),
        (false, true) => g,
        (true, false) => s,
        (true, true) => "info".to_string(),
    }
}

struct Person {
    given: &'static str,
    surname: &'static str,
    male: bool,
    birth_year: usize,
    famc: Option<usize>,
    fams: Option<usize>,
}

struct Generator {
    rng: Rng,
    indi: Out,
    fam: Out,
    sour: Out,
    next_indi: usize,
    next_fam: usize,
    sources: usize,
}

impl Generator {
    fn individual(&mut self, p: &Person) -> usize {
        self.next_indi += 1;
        let id = self.next_indi;
        let rng = &mut self.rng;
        let o = &mut self.indi;
        o.line(0, Some(('I', id)), "INDI", "");
        o.line(1, None, "NAME", &format!("{} /{}/", p.given, p.surname));
        o.line(2, None, "GIVN", p.given);
        o.line(2, None, "SURN", p.surname);
        if rng.chance(8) {
            o.line(
                2,
                None,
                "NICK",
                rng.pick(if p.male { MALE } else { FEMALE }),
            );
        }
        o.line(1, None, "SEX", if p.male { "M" } else { "F" });
        o.line(1, None, "BIRT", "");
        o.line(2, None, "DATE", &date(rng, p.birth_year));
        o.line(2, None, "PLAC", rng.pick(PLACES));
        if self.sources > 0 && rng.chance(40) {
            let s = rng.range(1, self.sources);
            o.pointer_line(2, "SOUR", 'S', s);
            o.line(
                3,
                None,
                "PAGE",
                &format!("Folio {}, entry {}", rng.range(1, 400), rng.range(1, 60)),
            );
            if rng.chance(30) {
                o.line(3, None, "QUAY", &rng.range(0, 3).to_string());
            }
        }
        if rng.chance(30) {
            o.line(1, None, "CHR", "");
            o.line(2, None, "DATE", &date(rng, p.birth_year));
            o.line(2, None, "PLAC", rng.pick(PLACES));
        }
        if rng.chance(35) {
            o.line(1, None, "OCCU", rng.pick(OCCUPATIONS));
        }
        if rng.chance(15) {
            o.line(1, None, "RESI", "");
            o.line(
                2,
                None,
                "DATE",
                &format!("{}", p.birth_year + rng.range(20, 50)),
            );
            o.line(
                2,
                None,
                "ADDR",
                &format!("{} High Street", rng.range(1, 200)),
            );
            o.line(
                3,
                None,
                "CITY",
                rng.pick(PLACES).split(',').next().unwrap_or("Leeds"),
            );
            if rng.chance(40) {
                // `@@` is how a literal `@` is written in GEDCOM 5.5.1.
                let name = email_name(p.given, p.surname);
                o.line(2, None, "EMAIL", &format!("{name}@@example.com"));
            }
        }
        if rng.chance(55) {
            let death = p.birth_year + rng.range(1, 95);
            o.line(1, None, "DEAT", if rng.chance(10) { "Y" } else { "" });
            o.line(2, None, "DATE", &date(rng, death));
            o.line(2, None, "PLAC", rng.pick(PLACES));
            if rng.chance(40) {
                o.line(1, None, "BURI", "");
                o.line(2, None, "DATE", &date(rng, death));
                o.line(2, None, "PLAC", rng.pick(PLACES));
            }
        }
        if let Some(f) = p.famc {
            o.pointer_line(1, "FAMC", 'F', f);
        }
        if let Some(f) = p.fams {
            o.pointer_line(1, "FAMS", 'F', f);
        }
        if rng.chance(25) {
            let text = paragraphs(rng);
            let width = rng.range(60, 240);
            o.long_text(1, "NOTE", &text, width);
        }
        if rng.chance(30) {
            o.line(1, None, "_UID", &uid(rng));
        }
        o.line(1, None, "CHAN", "");
        o.line(
            2,
            None,
            "DATE",
            &format!(
                "{} {} {}",
                rng.range(1, 28),
                rng.pick(MONTHS),
                rng.range(1998, 2024)
            ),
        );
        o.line(
            3,
            None,
            "TIME",
            &format!(
                "{:02}:{:02}:{:02}",
                rng.below(24),
                rng.below(60),
                rng.below(60)
            ),
        );
        id
    }

    fn source(&mut self) {
        self.sources += 1;
        let id = self.sources;
        let rng = &mut self.rng;
        let o = &mut self.sour;
        o.line(0, Some(('S', id)), "SOUR", "");
        o.line(
            1,
            None,
            "TITL",
            &format!("{}, {}", rng.pick(SOURCE_TITLES), rng.pick(PLACES)),
        );
        o.line(1, None, "AUTH", rng.pick(REPOSITORIES));
        o.line(
            1,
            None,
            "PUBL",
            &format!("Microfilm {}", rng.range(100_000, 999_999)),
        );
        o.line(1, None, "REPO", "");
        o.line(
            2,
            None,
            "CALN",
            &format!("RG {}/{}", rng.range(9, 14), rng.range(1, 9999)),
        );
        if rng.chance(50) {
            let text = paragraphs(rng);
            o.long_text(1, "TEXT", &text, 200);
        }
    }

    /// One family: husband, wife, their children (all written as INDI records) and the FAM record.
    fn family(&mut self) {
        self.next_fam += 1;
        let fam = self.next_fam;
        let surname = self.rng.pick(SURNAMES);
        let wife_surname = self.rng.pick(SURNAMES);
        let year = self.rng.range(1700, 1960);
        let husband = Person {
            given: self.rng.pick(MALE),
            surname,
            male: true,
            birth_year: year,
            famc: None,
            fams: Some(fam),
        };
        let wife = Person {
            given: self.rng.pick(FEMALE),
            surname: wife_surname,
            male: false,
            birth_year: year + self.rng.range(0, 6) - 3,
            famc: None,
            fams: Some(fam),
        };
        let h = self.individual(&husband);
        let w = self.individual(&wife);
        let n_children = self.rng.range(0, 6);
        let mut children = Vec::with_capacity(n_children);
        for _ in 0..n_children {
            let male = self.rng.chance(50);
            let child = Person {
                given: self.rng.pick(if male { MALE } else { FEMALE }),
                surname,
                male,
                birth_year: year + self.rng.range(20, 45),
                famc: Some(fam),
                fams: None,
            };
            children.push(self.individual(&child));
        }
        let rng = &mut self.rng;
        let o = &mut self.fam;
        o.line(0, Some(('F', fam)), "FAM", "");
        o.pointer_line(1, "HUSB", 'I', h);
        o.pointer_line(1, "WIFE", 'I', w);
        o.line(1, None, "MARR", "");
        let married = year + rng.range(18, 30);
        o.line(2, None, "DATE", &date(rng, married));
        o.line(2, None, "PLAC", rng.pick(PLACES));
        for c in children {
            o.pointer_line(1, "CHIL", 'I', c);
        }
        if n_children > 0 {
            o.line(1, None, "NCHI", &n_children.to_string());
        }
        if rng.chance(20) {
            o.line(1, None, "_UID", &uid(rng));
        }
    }

    fn len(&self) -> usize {
        self.indi.buf.len() + self.fam.buf.len() + self.sour.buf.len()
    }
}

fn header(out: &mut Out, target: usize) {
    out.line(0, None, "HEAD", "");
    out.line(1, None, "SOUR", "GEDGRAFT_XTASK");
    out.line(2, None, "VERS", "0.1");
    out.line(2, None, "NAME", "gedgraft sample generator");
    out.line(2, None, "CORP", "gedgraft");
    out.line(1, None, "DEST", "ANY");
    out.line(1, None, "DATE", "1 JAN 2024");
    out.line(2, None, "TIME", "12:00:00");
    out.line(1, None, "SUBM", "@U1@");
    out.line(1, None, "FILE", &format!("sample-{}.ged", target));
    out.line(
        1,
        None,
        "COPR",
        "Generated test data; all persons are fictitious",
    );
    out.line(1, None, "GEDC", "");
    out.line(2, None, "VERS", "5.5.1");
    out.line(2, None, "FORM", "LINEAGE-LINKED");
    out.line(1, None, "CHAR", "UTF-8");
    out.line(1, None, "LANG", "English");
    out.line(0, Some(('U', 1)), "SUBM", "");
    out.line(1, None, "NAME", "Zoë Łukaszewicz-Müller");
    out.line(1, None, "ADDR", "Ærøvej 12");
    out.line(2, None, "CITY", "København");
    out.line(2, None, "CTRY", "Danmark");
    out.line(1, None, "EMAIL", "zoe@@example.org");
}

/// Generates about `target` octets (a little more: the last family is finished) of GEDCOM 5.5.1.
pub fn generate(target: usize, crlf: bool, seed: u64) -> Vec<u8> {
    let eol: &'static [u8] = if crlf { b"\r\n" } else { b"\n" };
    let mut head = Out::new(4096, eol);
    header(&mut head, target);
    let mut g = Generator {
        rng: Rng::new(seed),
        indi: Out::new(target / 10 * 8, eol),
        fam: Out::new(target / 10 * 2, eol),
        sour: Out::new(target / 50, eol),
        next_indi: 0,
        next_fam: 0,
        sources: 0,
    };
    // About one source per 40 families.
    g.source();
    let budget = target.saturating_sub(head.buf.len() + 8);
    while g.len() < budget {
        g.family();
        if g.rng.chance(3) {
            g.source();
        }
    }
    let mut out = head.buf;
    out.reserve(g.len() + 16);
    out.extend_from_slice(&g.indi.buf);
    out.extend_from_slice(&g.fam.buf);
    out.extend_from_slice(&g.sour.buf);
    out.extend_from_slice(b"0 TRLR");
    out.extend_from_slice(eol);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_sized() {
        let a = generate(200_000, false, 7);
        let b = generate(200_000, false, 7);
        assert_eq!(a, b);
        assert!(a.len() >= 200_000 && a.len() < 210_000, "{}", a.len());
        assert!(std::str::from_utf8(&a).is_ok());
        assert!(a.ends_with(b"0 TRLR\n"));
        let text = String::from_utf8_lossy(&a);
        for needle in [
            "1 CHAR UTF-8",
            "2 CONC ",
            "2 CONT ",
            "1 _UID ",
            "@@example.com",
            "1 FAMC @F",
            "1 CHIL @I",
        ] {
            assert!(text.contains(needle), "{needle}");
        }
        assert!(text.lines().all(|l| l.len() <= 255));
    }

    #[test]
    fn crlf() {
        let a = generate(50_000, true, 7);
        assert_eq!(
            memchr::memchr_iter(b'\n', &a).count(),
            memchr::memmem::find_iter(&a, b"\r\n").count()
        );
    }

    #[test]
    fn parses_cleanly_and_round_trips() {
        let a = generate(100_000, false, 3);
        let parse = gedgraft_syntax::parse(&a);
        let errors: Vec<_> = parse
            .diagnostics()
            .iter()
            .take(5)
            .map(|d| d.to_string())
            .collect();
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(parse.to_bytes().as_deref(), Ok(&a[..]));
    }
}
