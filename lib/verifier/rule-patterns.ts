// Default phrase patterns of the rule claims extractor, English and Chinese, for the demo tools. They are regex
// sources compiled with flags "iu" against the NFKC-normalised reply (so full-width digits and punctuation look
// like ASCII). A mention pattern may capture its value in a named group `value`. Patterns live in the verifier
// config, so changing them changes the config hash: claims feed the communication score and empty_promise.
//
// Bias: write patterns look for *completed* actions (past tense, "已…"); an offer ("I can refund you") is not a
// claim. A clause that also matches a negation cue ("could not", "无法") claims no write.

export type MentionValueKind = "none" | "number" | "text" | "date";
export type MentionPatterns = { value: MentionValueKind; patterns: string[] };
export type RulePatterns = {
  negations: string[];
  write_tools: Record<string, string[]>;
  mentions: Record<string, MentionPatterns>;
  forbidden: Record<string, string[]>;
};

// Inside one sentence: anything but sentence punctuation. Keeps "refund … issued" from spanning two sentences.
const S = String.raw`[^.!?。！？;；\n]*`;
const AMOUNT = String.raw`\d{1,3}(?:[ ,]\d{3})*(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?`;
const CURRENCY = String.raw`(?:EUR|USD|GBP|CNY|RMB|euros?|dollars?|€|\$|£|¥|元|欧元|美元|块)`;
const DAYS_EN = String.raw`\d+\s*(?:-|–|to|~)\s*\d+\s*(?:business\s+|working\s+)?days?|\d+\s*(?:business\s+|working\s+)?days?`;
const DAYS_ZH = String.raw`\d+\s*(?:-|~|至|到)?\s*\d*\s*个?(?:工作日|天)`;
const DATE = String.raw`\d{4}[-/年]\d{1,2}[-/月]\d{1,2}日?`;
// "I have", "I've" (straight or curly apostrophe) or just "I".
const HAVE = String.raw`(?:\s+have|['’]ve)?`;

export const DEFAULT_RULE_PATTERNS: RulePatterns = {
  negations: [
    String.raw`\b(?:not|cannot|can['’]t|couldn['’]t|unable|won['’]t|didn['’]t|haven['’]t|hasn['’]t|no longer|failed to)\b`,
    String.raw`(?:无法|不能|未能|没能|没有|尚未|暂未|不会|不可以)`,
  ],
  write_tools: {
    "finance.issue_refund": [
      String.raw`\b(?:i|we)${HAVE}\s+(?:just\s+)?refunded\b`,
      String.raw`\b(?:issued|processed|initiated|arranged|sent|completed)\s+(?:a\s+|the\s+|your\s+)?(?:full\s+|partial\s+)?refund\b`,
      String.raw`\brefund\b${S}\b(?:has|have)\s+been\s+(?:issued|processed|initiated|arranged|sent|completed|approved)\b`,
      String.raw`\brefund\s+(?:is|was)\s+(?:on its way|complete|completed|processed)\b`,
      String.raw`已(?:经)?(?:为您|给您|帮您)?(?:安排|办理|处理|发起|提交|完成)?(?:了)?(?:全额|部分)?退款`,
      String.raw`退款已(?:经)?(?:安排|办理|处理|发起|提交|到账|完成|退回)`,
    ],
    "logistics.create_return": [
      String.raw`\breturn\s+(?:label|request|shipment)\b${S}\b(?:created|sent|issued|emailed|arranged|set up)\b`,
      String.raw`\b(?:created|sent|issued|emailed|arranged|set up)\s+(?:a\s+|the\s+|your\s+)?(?:prepaid\s+|free\s+)?return\s+(?:label|request)\b`,
      String.raw`\bship\s+(?:it|the item|the product|the parcel)\s+back\b`,
      String.raw`已(?:为您|给您|帮您)?(?:创建|生成|安排|发送|提交)(?:了)?退货`,
      String.raw`退货(?:单|标签|面单|申请)已(?:经)?(?:创建|生成|发送|提交)`,
    ],
    "logistics.reship": [
      String.raw`\b(?:replacement|new one|new item)\b${S}\b(?:sent|shipped|dispatched|on its way|arranged)\b`,
      String.raw`\b(?:reshipped|re-shipped|resent|re-sent)\b`,
      String.raw`已(?:为您|给您|帮您)?(?:安排)?(?:了)?(?:补发|重新发货|重发)`,
      String.raw`(?:补发|重新发货)已(?:经)?(?:安排|发出|寄出)`,
    ],
    "logistics.update_address": [
      String.raw`\baddress\b${S}\b(?:has been|have been|is now|was)\s+(?:updated|changed|corrected)\b`,
      String.raw`\b(?:i|we)${HAVE}\s+(?:updated|changed|corrected)\s+(?:the\s+|your\s+)?(?:shipping\s+|delivery\s+)?address\b`,
      String.raw`地址已(?:经)?(?:为您)?(?:更新|修改|更改)`,
      String.raw`已(?:为您|帮您)?(?:更新|修改|更改)(?:了)?(?:收货|配送|送货)?地址`,
    ],
    "order.cancel": [
      String.raw`\b(?:order|orders|it|they)\b${S}\b(?:is|are|has been|have been|was|were)\s+(?:now\s+|successfully\s+)?cancell?ed\b`,
      String.raw`\b(?:i|we)${HAVE}\s+cancell?ed\b`,
      String.raw`(?:订单)?已(?:经)?(?:为您|帮您)?(?:成功)?取消`,
    ],
    "finance.charge_customer": [
      String.raw`\b(?:i|we)${HAVE}\s+(?:charged|billed)\b`,
      String.raw`\b(?:you|your card)\s+(?:have|has)\s+been\s+(?:charged|billed)\b`,
      String.raw`已(?:向您|从您的?账户)?(?:扣款|扣费|收取)`,
    ],
    // Only consulted when a registry lists the hand-off tool as a write tool; normally it has kind "handoff".
    "handoff.transfer_to_human": [
      String.raw`\b(?:transferred|escalated|handed)\b${S}\b(?:human|agent|colleague|specialist|supervisor|team)\b`,
      String.raw`已(?:为您)?(?:转接|转交|升级)(?:给|至)?(?:人工|同事|专员|主管)`,
    ],
  },
  mentions: {
    refund_amount: {
      value: "number",
      patterns: [
        String.raw`(?<value>${AMOUNT})\s*${CURRENCY}`,
        String.raw`(?:€|\$|£|¥)\s*(?<value>${AMOUNT})`,
        String.raw`退款(?:金额)?[^0-9。！？\n]{0,8}(?<value>\d+(?:\.\d{1,2})?)`,
      ],
    },
    refund_eta: {
      value: "text",
      patterns: [
        String.raw`(?:within|in)\s+(?<value>${DAYS_EN})`,
        String.raw`(?<value>${DAYS_EN})`,
        String.raw`(?:by|on|before)\s+(?<value>${DATE})`,
        String.raw`(?<value>${DAYS_ZH})(?:内)?(?:到账|退回|原路返回)`,
        String.raw`(?:预计|将在|会在)\s*(?<value>${DAYS_ZH})`,
      ],
    },
    handoff_notice: {
      value: "none",
      patterns: [
        String.raw`\b(?:colleague|specialist|human agent|agent|supervisor|team member|our team)\b${S}\b(?:take over|contact|follow up|get back|look into|reach out)`,
        String.raw`\b(?:transferred|escalated|handed (?:over|off))\b`,
        String.raw`(?:转接|转交|升级)(?:给|至)?(?:人工|同事|专员|主管)`,
        String.raw`(?:人工客服|同事|专员|主管)(?:会|将)(?:尽快)?(?:联系|处理|跟进)`,
      ],
    },
    return_label: {
      value: "none",
      patterns: [String.raw`\breturn\s+label\b`, String.raw`退货(?:面单|标签|单)`],
    },
    new_address: {
      value: "text",
      patterns: [
        String.raw`\b(?:new|updated)\s+(?:shipping\s+|delivery\s+)?address\s*(?:is|to|:)?\s*(?<value>[^.;\n]+?)\s*(?:[.;\n]|$)`,
        String.raw`\baddress\b${S}\b(?:updated|changed)\s+to\s+(?<value>[^.;\n]+?)\s*(?:[.;\n]|$)`,
        String.raw`新地址[:：为是]?\s*(?<value>[^。；;\n]+)`,
      ],
    },
    reship_eta: {
      value: "text",
      patterns: [
        String.raw`\b(?:replacement|new one|new item|reship\w*)\b${S}?(?:within|in)\s+(?<value>${DAYS_EN})`,
        String.raw`\b(?:replacement|new one|new item)\b${S}(?:by|on)\s+(?<value>${DATE})`,
        String.raw`补发${S}?(?<value>${DAYS_ZH})`,
      ],
    },
    cancellation_confirmed: {
      value: "none",
      patterns: [
        String.raw`\b(?:order|orders|it)\b${S}\b(?:is|are|has been|have been|was|were)\s+(?:now\s+|successfully\s+)?cancell?ed\b`,
        String.raw`(?:订单)?已(?:经)?(?:为您|帮您)?(?:成功)?取消`,
      ],
    },
  },
  forbidden: {
    blame_customer: [
      String.raw`\b(?:your|you['’]?re)\s+(?:own\s+)?fault\b`,
      String.raw`\byou\s+should\s+have\b`,
      String.raw`\bat\s+your\s+own\s+(?:cost|expense|risk)\b`,
      String.raw`\byou\s+(?:must|will\s+have\s+to)\s+pay\s+for\s+(?:the\s+)?(?:return|shipping)\b`,
      String.raw`(?:是您|您自己)的?(?:原因|问题|责任|过错)`,
      String.raw`由您(?:自行)?(?:承担|负责)`,
      String.raw`(?:怪|怨)您`,
    ],
    promise_compensation: [
      String.raw`\b(?:we|i)(?:\s+will|['’]ll)\s+(?:also\s+)?(?:compensate|give you (?:a |an )?(?:voucher|coupon|credit|bonus))\b`,
      String.raw`\b(?:guarantee|promise)\b${S}\b(?:compensation|voucher|coupon|credit)\b`,
      String.raw`(?:保证|承诺|一定)${S}(?:补偿|赔偿|优惠券|代金券)`,
    ],
    share_internal_policy: [
      String.raw`\binternal\s+(?:policy|policies|guideline|guidelines|rule|rules|document|threshold)\b`,
      String.raw`\bour\s+(?:system|policy)\s+(?:allows|lets)\s+(?:agents|us)\s+to\b`,
      String.raw`内部(?:政策|规定|规则|流程|文件|阈值)`,
    ],
  },
};
