// lang_zh.c: Simplified Chinese as mkcorpus writes it: common words and
// office vocabulary, every character in GB 2312 so that GB2312 and GBK carry
// them, names with pinyin, set phrases, charsets and the time zone.
#include "mkcorpus_internal.h"

// clang-format off
static const char *const words[] = {
    "的", "是", "在", "了", "我", "不", "有", "和", "人", "这", "中", "大", "为", "上", "个", "们",
    "到", "说", "要", "就", "会", "可以", "也", "你", "对", "能", "而", "那", "得", "于", "着",
    "下", "自己", "年", "过", "后", "里", "用", "所", "家", "事", "多", "都", "同", "现在", "看",
    "天", "还", "好", "小", "其", "些", "主要", "前", "但", "因为", "只", "从", "想", "日", "会议",
    "项目", "文件", "附件", "报告", "客户", "公司", "团队", "办公室", "同事", "经理", "领导",
    "问题", "解决", "方案", "错误", "修改", "更新", "版本", "系统", "服务器", "数据", "信息",
    "内容", "结果", "情况", "进度", "任务", "计划", "安排", "时间", "地点", "今天", "明天", "昨天",
    "下周", "本周", "星期一", "星期二", "星期三", "星期四", "星期五", "周末", "上午", "下午",
    "晚上", "谢谢", "您好", "请", "确认", "回复", "邮件", "电话", "号码", "地址", "链接", "网站",
    "账户", "密码", "用户", "安全", "合同", "报价", "发票", "付款", "订单", "发货", "价格", "费用",
    "预算", "审核", "批准", "签字", "北京", "上海", "广州", "深圳", "出差", "火车", "飞机", "酒店",
    "旅行", "假期", "家人", "孩子", "天气", "下雨", "吃饭", "午饭", "晚饭", "咖啡", "春天", "夏天",
    "秋天", "冬天", "新", "旧", "重要", "需要", "可能", "已经", "马上", "尽快", "一起", "非常",
    "比较", "一下", "一些", "所有", "每个", "大家", "老师", "学生", "大学", "课程", "考试", "研究",
    "论文", "讨论", "准备", "参加", "通知", "帮助", "支持", "建议", "意见", "原因", "目的", "方法",
    "步骤", "测试", "开发", "上线", "部署", "配置", "环境", "日志", "文档", "如果", "然后", "所以",
    "但是", "或者", "已", "将", "并", "与", "及", "等", "把", "被", "让", "给", "没有", "知道",
    "觉得", "发现", "开始", "完成", "提交", "检查", "收到", "发送", "联系", "负责",
};
// clang-format on

// clang-format off
static const char *const syllables[] = {
    "华", "明", "星", "海", "通", "达", "信", "科", "技", "网", "联", "创", "新", "业", "智", "能",
    "云", "数", "宝", "安", "泰", "盛", "源", "丰", "天", "宇", "恒", "嘉", "和", "瑞", "鑫", "隆",
};
// clang-format on

// clang-format off
static const struct mkc_name given[] = {
    {"伟", "wei"}, {"芳", "fang"}, {"娜", "na"}, {"秀英", "xiuying"}, {"敏", "min"}, {"静", "jing"},
    {"丽", "li"}, {"强", "qiang"}, {"磊", "lei"}, {"军", "jun"}, {"洋", "yang"}, {"勇", "yong"},
    {"艳", "yan"}, {"杰", "jie"}, {"娟", "juan"}, {"涛", "tao"}, {"明", "ming"}, {"超", "chao"},
    {"秀兰", "xiulan"}, {"霞", "xia"}, {"平", "ping"}, {"刚", "gang"}, {"桂英", "guiying"},
    {"建国", "jianguo"}, {"晓明", "xiaoming"}, {"海燕", "haiyan"}, {"志强", "zhiqiang"},
    {"丹", "dan"},
};
// clang-format on

// clang-format off
static const struct mkc_name family[] = {
    {"王", "wang"}, {"李", "li"}, {"张", "zhang"}, {"刘", "liu"}, {"陈", "chen"}, {"杨", "yang"},
    {"黄", "huang"}, {"赵", "zhao"}, {"吴", "wu"}, {"周", "zhou"}, {"徐", "xu"}, {"孙", "sun"},
    {"马", "ma"}, {"朱", "zhu"}, {"胡", "hu"}, {"郭", "guo"}, {"何", "he"}, {"高", "gao"},
    {"林", "lin"}, {"罗", "luo"}, {"郑", "zheng"}, {"梁", "liang"}, {"谢", "xie"}, {"宋", "song"},
    {"唐", "tang"},
};
// clang-format on

static const char *const domains[] = {"gongsi.example", "qq.example", "163.example",
                                      "daxue.example"};

static const char *const greetings[] = {"%s，你好！", "%s，您好！", "亲爱的%s：", "%s："};
static const char *const closings[] = {"谢谢！", "此致敬礼", "祝好！", "谢谢，"};
static const char *const titles[] = {"项目经理", "软件工程师", "销售总监", "行政助理", "研究员"};
static const char *const original_labels[] = {"发件人:", "发送时间:", "收件人:", "主题:"};

static const unsigned charset_weights[MKC_CS_COUNT] = {
    [MKC_CS_UTF_8] = 40, [MKC_CS_GB2312] = 35, [MKC_CS_GBK] = 25};

static const int tz_minutes[] = {480};

static const struct mkc_mailing_list lists[] = {
    {"kaifa", "lists.gongsi.example", "Kaifa taolun"},
    {"tongzhi", "lists.daxue.example", "Xueyuan tongzhi"},
};

const struct mkc_lang_data mkc_lang_zh = {
    .code = "zh-CN",
    .label = "Chinese",
    .family_first = true,
    .words = MKC_COUNTED(words),
    .syllables = MKC_COUNTED(syllables),
    .given = MKC_COUNTED(given),
    .family = MKC_COUNTED(family),
    .domains = MKC_COUNTED(domains),
    .greetings = MKC_COUNTED(greetings),
    .closings = MKC_COUNTED(closings),
    .titles = MKC_COUNTED(titles),
    .company = "示例科技有限公司",
    .attribution = "在 %Y年%m月%d日 %H:%M，%n 写道：",
    .original_message = "-----原始邮件-----",
    .original_labels = original_labels,
    .reply_prefix = "回复: ",
    .forward_prefix = "转发: ",
    .sentence_end = "。",
    .question_end = "？",
    .comma = "，",
    .quote_open = "“",
    .quote_close = "”",
    .charset_weights = charset_weights,
    .tz_minutes = MKC_COUNTED(tz_minutes),
    .lists = MKC_COUNTED(lists),
};
