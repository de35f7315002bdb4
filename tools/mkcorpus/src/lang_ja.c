// lang_ja.c: Japanese as mkcorpus writes it: particles, business vocabulary
// and everyday words, all in JIS X 0208 so that ISO-2022-JP and Shift_JIS can
// carry them (no half-width kana, no wave dash, no characters whose mapping
// differs between converters), names with romanizations, set phrases.
#include "mkcorpus_internal.h"

// clang-format off
static const char *const words[] = {
    "の", "に", "は", "を", "が", "で", "と", "て", "です", "ます", "も", "から", "こと", "この",
    "その", "ため", "よう", "まで", "など", "について", "ご", "お", "確認", "件", "いたします",
    "ください", "お願い", "します", "しました", "ありがとうございます", "資料", "会議", "予定",
    "本日", "明日", "来週", "今週", "打ち合わせ", "添付", "ファイル", "送付", "対応", "検討",
    "報告", "連絡", "返信", "担当", "案件", "見積", "請求書", "契約", "納期", "日程", "時間",
    "場所", "会社", "部署", "社内", "お客様", "問題", "修正", "変更", "更新", "作業", "開発",
    "テスト", "サーバー", "システム", "データ", "情報", "内容", "結果", "状況", "進捗", "課題",
    "質問", "回答", "説明", "準備", "参加", "出席", "調整", "提出", "承知", "了解", "失礼",
    "申し訳", "ございます", "いただき", "でした", "ました", "ません", "思います", "考えます",
    "存じます", "月曜日", "火曜日", "水曜日", "木曜日", "金曜日", "午前", "午後", "今日", "昨日",
    "毎日", "少し", "多く", "大きい", "小さい", "新しい", "古い", "早い", "遅い", "良い", "難しい",
    "簡単", "重要", "必要", "可能", "大丈夫", "東京", "大阪", "京都", "出張", "電車", "飛行機",
    "ホテル", "旅行", "休暇", "週末", "家族", "子供", "天気", "雨", "晴れ", "食事", "昼食", "夕食",
    "コーヒー", "春", "夏", "秋", "冬", "年", "月", "日", "時", "分", "人", "方", "私", "私たち",
    "皆様", "先生", "部長", "課長", "社長", "メール", "電話", "番号", "住所", "リンク", "ページ",
    "サイト", "アカウント", "パスワード", "ユーザー", "セキュリティ", "プロジェクト", "チーム",
    "メンバー", "スケジュール", "ミーティング", "レポート", "ドキュメント", "バージョン", "エラー",
    "ログ", "設定", "環境", "本番", "手順", "方法", "理由", "目的", "予算", "費用", "金額", "価格",
    "支払い", "注文", "発送", "受領", "承認", "署名", "大学", "学生", "授業", "試験", "研究",
    "論文", "発表", "学会", "また", "および", "または", "しかし", "そして", "ただし", "なお",
    "ところ", "ここ", "それ", "これ", "あります", "ありません", "できます", "なります", "いる",
    "ある", "する", "なる", "見る", "行く", "来る", "言う",
};
// clang-format on

// clang-format off
static const char *const syllables[] = {
    "ア", "イ", "ウ", "エ", "オ", "カ", "キ", "ク", "ケ", "コ", "サ", "シ", "ス", "セ", "ソ", "タ",
    "チ", "テ", "ト", "ナ", "ニ", "ノ", "ハ", "ヒ", "フ", "マ", "ミ", "ム", "メ", "モ", "ラ", "リ",
    "ル", "レ", "ロ", "ン", "ー", "ド", "グ", "ブ", "プ", "ジ",
};
// clang-format on

// clang-format off
static const struct mkc_name given[] = {
    {"太郎", "taro"}, {"健太", "kenta"}, {"翔太", "shota"}, {"大輔", "daisuke"}, {"拓也", "takuya"},
    {"直樹", "naoki"}, {"浩二", "koji"}, {"誠", "makoto"}, {"隆", "takashi"}, {"裕子", "yuko"},
    {"美穂", "miho"}, {"恵", "megumi"}, {"由美", "yumi"}, {"真由美", "mayumi"}, {"陽子", "yoko"},
    {"智子", "tomoko"}, {"明美", "akemi"}, {"さくら", "sakura"}, {"花子", "hanako"}, {"愛", "ai"},
    {"和也", "kazuya"}, {"健一", "kenichi"}, {"雅人", "masato"}, {"舞", "mai"}, {"彩", "aya"},
};
// clang-format on

// clang-format off
static const struct mkc_name family[] = {
    {"佐藤", "sato"}, {"鈴木", "suzuki"}, {"高橋", "takahashi"}, {"田中", "tanaka"},
    {"伊藤", "ito"}, {"渡辺", "watanabe"}, {"山本", "yamamoto"}, {"中村", "nakamura"},
    {"小林", "kobayashi"}, {"加藤", "kato"}, {"吉田", "yoshida"}, {"山田", "yamada"},
    {"佐々木", "sasaki"}, {"山口", "yamaguchi"}, {"松本", "matsumoto"}, {"井上", "inoue"},
    {"木村", "kimura"}, {"林", "hayashi"}, {"清水", "shimizu"}, {"山崎", "yamazaki"},
    {"森", "mori"}, {"池田", "ikeda"}, {"橋本", "hashimoto"}, {"阿部", "abe"}, {"石川", "ishikawa"},
};
// clang-format on

static const char *const domains[] = {"kaisha.example", "docomo.example", "daigaku.example",
                                      "shoji.example"};

static const char *const greetings[] = {"%sさん", "%s様", "%s さん", "%s先生"};
static const char *const closings[] = {"よろしくお願いいたします。", "以上、よろしくお願いします。",
                                       "よろしくお願いします。", "取り急ぎご連絡まで。"};
static const char *const titles[] = {"営業部 課長", "開発部", "プロジェクトマネージャー", "総務部",
                                     "研究室"};
static const char *const original_labels[] = {"差出人:", "送信日時:", "宛先:", "件名:"};

static const unsigned charset_weights[MKC_CS_COUNT] = {
    [MKC_CS_ISO_2022_JP] = 45, [MKC_CS_UTF_8] = 35, [MKC_CS_SHIFT_JIS] = 20};

static const int tz_minutes[] = {540};

static const struct mkc_mailing_list lists[] = {
    {"dev-jp", "ml.kaisha.example", "Kaihatsu ML"},
    {"info", "ml.daigaku.example", "Kenkyushitsu ML"},
};

const struct mkc_lang_data mkc_lang_ja = {
    .code = "ja-JP",
    .label = "Japanese",
    .family_first = true,
    .name_space = true,
    .words = MKC_COUNTED(words),
    .syllables = MKC_COUNTED(syllables),
    .given = MKC_COUNTED(given),
    .family = MKC_COUNTED(family),
    .domains = MKC_COUNTED(domains),
    .greetings = MKC_COUNTED(greetings),
    .closings = MKC_COUNTED(closings),
    .titles = MKC_COUNTED(titles),
    .company = "株式会社サンプル",
    .attribution = "%Y年%m月%d日 %H:%M %n:",
    .original_message = "-----Original Message-----",
    .original_labels = original_labels,
    .reply_prefix = "RE: ",
    .forward_prefix = "FW: ",
    .sentence_end = "。",
    .question_end = "？",
    .comma = "、",
    .quote_open = "「",
    .quote_close = "」",
    .opener = "お世話になっております。",
    .charset_weights = charset_weights,
    .tz_minutes = MKC_COUNTED(tz_minutes),
    .lists = MKC_COUNTED(lists),
};
