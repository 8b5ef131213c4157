/**
 * Opt-out words in India's main languages, on top of OPT_OUT_KEYWORDS: each in its
 * script and in the Latin spellings people type. Whole messages only. Left out on purpose, since
 * they are ordinary replies and a false opt-out silently loses a customer: bare "no" (नहीं, nahi,
 * না, వద్దు, வேண்டாம், ಬೇಡ, വേണ്ട, ਨਹੀਂ, نہیں), "wait"/"enough" (रुको, ruko, बस, bas, থাক), bare
 * "closed" (बंद, band, বন্ধ, બંધ, بند: a shop's "band hai"), "ok" words and emoji.
 * These lists were written from knowledge, not by native speakers: each needs a native reading
 * (docs/reach-and-consent-design.md).
 */
export const OPT_OUT_WORDS: ReadonlyArray<{ language: string; words: readonly string[] }> = [
  {
    language: 'hi',
    words: [
      'बंद करो',
      'बंद करें',
      'बंद कीजिए',
      'रोको',
      'रोकें',
      'मत भेजो',
      'मत भेजें',
      'मैसेज मत भेजो',
      'मैसेज बंद करो',
      'संदेश बंद करो',
      'मैसेज भेजना बंद करो',
      'स्टॉप',
      'स्टाप',
      'अनसब्सक्राइब',
      'अनसबस्क्राइब',
      'सदस्यता रद्द करें',
      'band karo',
      'bandh karo',
      'band kro',
      'band kar do',
      'band karen',
      'band kare',
      'roko',
      'mat bhejo',
      'mat bhejna',
      'message mat bhejo',
      'msg mat bhejo',
      'message band karo',
      'msg band karo',
    ],
  },
  {
    language: 'bn',
    words: [
      'বন্ধ করুন',
      'বন্ধ করো',
      'মেসেজ পাঠাবেন না',
      'আর পাঠাবেন না',
      'মেসেজ বন্ধ করুন',
      'স্টপ',
      'আনসাবস্ক্রাইব',
      'bondho korun',
      'bondho koro',
      'bandho koro',
      'message pathaben na',
      'ar pathaben na',
    ],
  },
  {
    language: 'mr',
    words: [
      'बंद करा',
      'मेसेज पाठवू नका',
      'पाठवू नका',
      'मेसेज बंद करा',
      'थांबवा',
      'band kara',
      'bandh kara',
      'message pathvu naka',
      'pathvu naka',
      'thambva',
    ],
  },
  {
    language: 'te',
    words: [
      'ఆపండి',
      'మెసేజ్‌లు పంపవద్దు',
      'పంపవద్దు',
      'మెసేజ్‌లు ఆపండి',
      'స్టాప్',
      'అన్‌సబ్‌స్క్రైబ్',
      'aapandi',
      'apandi',
      'pampavaddu',
      'messages pampavaddu',
    ],
  },
  {
    language: 'ta',
    words: [
      'நிறுத்து',
      'நிறுத்துங்கள்',
      'அனுப்ப வேண்டாம்',
      'மெசேஜ் அனுப்ப வேண்டாம்',
      'ஸ்டாப்',
      'அன்சப்ஸ்கிரைப்',
      'niruthu',
      'nirutthu',
      'niruthungal',
      'anuppa vendam',
      'message anuppa vendam',
    ],
  },
  {
    language: 'gu',
    words: [
      'બંધ કરો',
      'મેસેજ ન મોકલો',
      'ન મોકલો',
      'મેસેજ બંધ કરો',
      'સ્ટોપ',
      'અનસબ્સ્ક્રાઇબ',
      'na moklo',
      'message na moklo',
      'message bandh karo',
    ],
  },
  {
    language: 'kn',
    words: [
      'ನಿಲ್ಲಿಸಿ',
      'ನಿಲ್ಲಿಸು',
      'ಕಳುಹಿಸಬೇಡಿ',
      'ಮೆಸೇಜ್ ಕಳುಹಿಸಬೇಡಿ',
      'ಸ್ಟಾಪ್',
      'ಅನ್‌ಸಬ್‌ಸ್ಕ್ರೈಬ್',
      'nillisi',
      'nillisu',
      'kaluhisabedi',
      'kalisabedi',
      'message kalisabedi',
    ],
  },
  {
    language: 'ml',
    words: [
      'നിർത്തൂ',
      'നിർത്തുക',
      'അയക്കരുത്',
      'മെസേജ് അയക്കരുത്',
      'സ്റ്റോപ്പ്',
      'അൺസബ്സ്ക്രൈബ്',
      'nirthu',
      'nirthuka',
      'ayakkaruthu',
      'message ayakkaruthu',
    ],
  },
  {
    language: 'pa',
    words: ['ਬੰਦ ਕਰੋ', 'ਰੋਕੋ', 'ਨਾ ਭੇਜੋ', 'ਮੈਸੇਜ ਨਾ ਭੇਜੋ', 'ਸਟਾਪ', 'ਅਨਸਬਸਕ੍ਰਾਈਬ', 'na bhejo', 'message na bhejo'],
  },
  {
    language: 'or',
    words: [
      'ବନ୍ଦ କରନ୍ତୁ',
      'ବନ୍ଦ କର',
      'ପଠାନ୍ତୁ ନାହିଁ',
      'ମେସେଜ ପଠାନ୍ତୁ ନାହିଁ',
      'ଷ୍ଟପ',
      'ଅନସବସ୍କ୍ରାଇବ',
      'banda karantu',
      'bandha karantu',
      'banda kara',
      'pathantu nahin',
    ],
  },
  {
    language: 'ur',
    words: [
      'بند کرو',
      'بند کریں',
      'روکو',
      'مت بھیجو',
      'میسج مت بھیجو',
      'میسج بند کرو',
      'اسٹاپ',
      'سٹاپ',
      'ان سبسکرائب',
      'band karein',
    ],
  },
];

/**
 * The one-time answer to an opt-out, in the language of the word written ('en' for
 * OPT_OUT_KEYWORDS). Also awaiting a native reading.
 */
export const OPT_OUT_CONFIRMATIONS: Readonly<Record<string, string>> = {
  en: 'You will not receive more messages from us.',
  hi: 'आपको अब हमारे संदेश नहीं मिलेंगे।',
  bn: 'আপনি আর আমাদের কাছ থেকে মেসেজ পাবেন না।',
  mr: 'तुम्हाला आता आमचे संदेश येणार नाहीत.',
  te: 'ఇకపై మా నుండి మీకు సందేశాలు రావు.',
  ta: 'இனி எங்களிடமிருந்து உங்களுக்கு செய்திகள் வராது.',
  gu: 'તમને હવે અમારા સંદેશા નહીં મળે.',
  kn: 'ಇನ್ನು ಮುಂದೆ ನಿಮಗೆ ನಮ್ಮಿಂದ ಸಂದೇಶಗಳು ಬರುವುದಿಲ್ಲ.',
  ml: 'ഇനി ഞങ്ങളിൽ നിന്ന് നിങ്ങൾക്ക് സന്ദേശങ്ങൾ ലഭിക്കില്ല.',
  pa: 'ਤੁਹਾਨੂੰ ਹੁਣ ਸਾਡੇ ਸੁਨੇਹੇ ਨਹੀਂ ਮਿਲਣਗੇ।',
  or: 'ଆପଣ ଆଉ ଆମଠାରୁ ମେସେଜ ପାଇବେ ନାହିଁ।',
  ur: 'آپ کو اب ہمارے پیغامات نہیں ملیں گے۔',
};

/** Longer messages are never opt-outs: whole-message match only, no words found inside text. */
const MAX_OPT_OUT_CHARS = 60;

/** Emoji and text presentation selectors (U+FE00–U+FE0F), which change no letter. */
const VARIATION_SELECTORS = /[\uFE00-\uFE0F]/g;

const MALAYALAM_CHILLUS: Record<string, string> = {
  ണ: '\u0D7A',
  ന: '\u0D7B',
  ര: '\u0D7C',
  ല: '\u0D7D',
  ള: '\u0D7E',
};

/**
 * One spelling of what a person typed: NFC; Malayalam legacy chillus (consonant + virama + ZWJ)
 * as the atomic letters; Urdu written with Arabic letter forms as Urdu's; no format characters
 * (ZWNJ, ZWJ, ZWSP, marks of direction), variation selectors, harakat or tatweel; no punctuation
 * or symbols at either end (`STOP!`, the danda `।`, 🙏); one space between words; upper case.
 */
export function normaliseReply(text: string): string {
  return text
    .normalize('NFC')
    .replace(/([ണനരലള])\u0D4D\u200D/g, (_, c: string) => MALAYALAM_CHILLUS[c] ?? c)
    .replace(/[\u064A\u0649]/g, '\u06CC')
    .replace(/\u0643/g, '\u06A9')
    .replace(/\u0647/g, '\u06C1')
    .replace(/[\u064B-\u065F\u0640]/g, '')
    .replace(/\p{Cf}/gu, '')
    .replace(VARIATION_SELECTORS, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[\p{P}\p{S}\s]+|[\p{P}\p{S}\s]+$/gu, '')
    .toUpperCase();
}

export type OptOutMatch = { keyword: string; language: string };

/** The keyword table, normalised once per keyword list (OPT_OUT_KEYWORDS is English). */
const tables = new WeakMap<readonly string[], Map<string, OptOutMatch>>();

function tableOf(keywords: readonly string[]): Map<string, OptOutMatch> {
  let table = tables.get(keywords);
  if (table) return table;
  table = new Map();
  for (const keyword of keywords) {
    const key = normaliseReply(keyword);
    if (key !== '' && !table.has(key)) table.set(key, { keyword, language: 'en' });
  }
  // A transliteration shared by two languages keeps the first one listed.
  for (const { language, words } of OPT_OUT_WORDS)
    for (const keyword of words) {
      const key = normaliseReply(keyword);
      if (!table.has(key)) table.set(key, { keyword, language });
    }
  tables.set(keywords, table);
  return table;
}

/** The opt-out word a whole message is (OPT_OUT_KEYWORDS and OPT_OUT_WORDS), or null. */
export function matchOptOut(text: string, keywords: readonly string[]): OptOutMatch | null {
  const key = normaliseReply(text);
  if (key === '' || key.length > MAX_OPT_OUT_CHARS) return null;
  return tableOf(keywords).get(key) ?? null;
}
